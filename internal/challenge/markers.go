package challenge

// The signatures of challenges.md: what a vendor's challenge or block
// page carries that an ordinary page does not.

// decisiveHeaders appear only on mitigated responses: a challenge,
// whatever the status and body (challenges.md, rule 1). The names are in
// canonical form: they are looked up by map index.
var decisiveHeaders = []struct{ name, vendor string }{
	{"Cf-Mitigated", "Cloudflare"},
	{"X-Amzn-Waf-Action", "AWS WAF"},
	{"X-Vercel-Mitigated", "Vercel"},
}

// marker is a body signature of a challenge or block page. Shell markers
// are specific to the interstitial itself and count on a tiny 200/202 page
// too; the others count only with a refusal-ish status.
type marker struct {
	vendor, text string
	shell        bool
}

var challengeMarkers = []marker{
	{"Cloudflare", "/cdn-cgi/challenge-platform/", true},
	{"Cloudflare", "window._cf_chl_opt", true},
	{"Cloudflare", "__cf_chl_", true},
	{"Cloudflare", "<title>Just a moment...</title>", true},
	{"Cloudflare", "Attention Required! | Cloudflare", false},
	{"Cloudflare", "Sorry, you have been blocked", false},
	{"Cloudflare", "Enable JavaScript and cookies to continue", true},
	{"Akamai", "errors.edgesuite.net", false},
	{"Akamai", "You don't have permission to access", false},
	{"DataDome", "captcha-delivery.com", false},
	{"PerimeterX", "px-captcha", true},
	{"PerimeterX", "window._pxAppId", true},
	{"PerimeterX", "_pxCustomLogo", true},
	{"PerimeterX", "Access to this page has been denied", false},
	{"PerimeterX", "perimeterx.net/whywasiblocked", false},
	{"Imperva", "_Incapsula_Resource", true},
	{"Imperva", "Incapsula incident ID", false},
	{"Imperva", "Pardon Our Interruption", true},
	{"Sucuri", "Sucuri Website Firewall", false},
	{"Sucuri", "sucuri_cloudproxy", true},
	{"AWS WAF", "awswaf.com", true},
	{"Vercel", "Vercel Security Checkpoint", true},
	{"Google", "unusual traffic from your computer network", false},
	{"", "Checking your browser", true},
	{"", "Verify you are human", true},
	{"", "Are you a robot", true},
}

// captchaWidgets are embeds that are a challenge only when the CAPTCHA is
// the page: with a refusal status, or on a tiny page titled as a check.
var captchaWidgets = []string{
	"g-recaptcha", "recaptcha/api.js", "h-captcha", "hcaptcha.com/1/api.js",
	"cf-turnstile", "challenges.cloudflare.com/turnstile",
}

var checkTitles = []string{"security check", "verify you are human", "are you a robot", "human verification", "bot check", "captcha"}
