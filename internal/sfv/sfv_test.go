package sfv

import (
	"reflect"
	"strings"
	"testing"
)

// Each kind is told apart, only a Token keeps its value, and a key given
// twice keeps its first place and its last value.
func TestParseDictionaryKinds(t *testing.T) {
	got, ok := ParseDictionary(`a=1, b=-1.5, c="s", d=tok/en:x, e=:aGk=:, f=?0, g=@-5, h=%"%e2%82%ac", i=(1 b);p, j, a=n`)
	want := []Member{
		{"a", Token, "n"},
		{"b", Decimal, ""},
		{"c", String, ""},
		{"d", Token, "tok/en:x"},
		{"e", Bytes, ""},
		{"f", Boolean, ""},
		{"g", Date, ""},
		{"h", DisplayString, ""},
		{"i", InnerList, ""},
		{"j", Boolean, ""},
	}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDictionary = %v, %v; want %v", got, ok, want)
	}
	if got, ok := ParseDictionary(""); !ok || got != nil {
		t.Errorf(`ParseDictionary("") = %v, %v; want the empty Dictionary`, got, ok)
	}
	if got, ok := ParseDictionary("a=n, B=y"); ok || got != nil {
		t.Errorf("an upper-case key: %v, %v; want the whole field to fail", got, ok)
	}
}

// FuzzParseDictionary: a Dictionary that parses keeps parsing when a
// member is added before it, and gives the same members; every key read
// is a key of the grammar.
func FuzzParseDictionary(f *testing.F) {
	f.Add("ai-use=n")
	f.Add("train-ai=y, ai-use=n;x=1")
	f.Add("Train-AI=n")
	f.Add(`x=%"caf%c3%a9", y=:aGk=:, z=(a b);p=@12, w=-1.5`)
	f.Fuzz(func(t *testing.T, contentUsage string) {
		m1, ok1 := ParseDictionary(contentUsage)
		m2, ok2 := ParseDictionary("zz=y, " + strings.TrimLeft(contentUsage, " "))
		if ok1 && strings.TrimLeft(contentUsage, " ") != "" {
			if !ok2 {
				t.Errorf("%q parses but not after a first member", contentUsage)
			} else if !strings.Contains(contentUsage, "zz") && !reflect.DeepEqual(m1, m2[1:]) {
				t.Errorf("%q: %v, then %v", contentUsage, m1, m2[1:])
			}
		}
		for _, m := range m1 {
			if m.Key == "" || !(isLCAlpha(m.Key[0]) || m.Key[0] == '*') {
				t.Errorf("%q: bad key %q", contentUsage, m.Key)
			}
		}
	})
}
