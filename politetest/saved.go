package politetest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
)

// ReadPage reads a saved HTTP response — a status line, headers, a blank
// line and the body, as `curl -i` writes one — into a Page that answers
// with it: a challenge page or a refusal met in the wild, replayed. A body
// shorter than its Content-Length is kept as far as it goes.
func ReadPage(path string) (Page, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Page{}, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		return Page{}, fmt.Errorf("politetest: %s: %w", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil && err != io.ErrUnexpectedEOF {
		return Page{}, fmt.Errorf("politetest: %s: %w", path, err)
	}
	return Page{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}
