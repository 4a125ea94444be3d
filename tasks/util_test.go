package tasks_test

import (
	"io"
	"net/http"
	"strings"
)

func bufCopy(w *strings.Builder, resp *http.Response) (int64, error) {
	return io.Copy(w, io.LimitReader(resp.Body, 1<<20))
}
