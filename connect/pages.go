package connect

import (
	"html/template"
	"net/http"
	"sync"
)

// page is what every connect page shows: a headline, a sentence or two, and at most one
// button.
type page struct {
	Title   string
	Server  string
	Heading string
	Lines   []string
	// Form, when set, is a POST form with one hidden field and one button.
	Form *pageForm
	// OK marks a page that ends the flow successfully.
	OK bool
}

type pageForm struct {
	Action string
	Name   string
	Value  string
	Button string
}

var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}
.ok{color:#116329}.fail{color:#a40e26}
button{font-size:1rem;padding:.5rem 1.2rem}
footer{margin-top:3rem;color:#666;font-size:.85rem}
</style>
</head>
<body>
<h1 id="heading" class="{{if .OK}}ok{{else if .Form}}{{else}}fail{{end}}">{{.Heading}}</h1>
{{range .Lines}}<p>{{.}}</p>
{{end}}{{with .Form}}<form method="post" action="{{.Action}}">
<input type="hidden" name="{{.Name}}" value="{{.Value}}">
<button id="continue" type="submit">{{.Button}}</button>
</form>
{{end}}<footer>{{.Server}}</footer>
</body>
</html>
`))
})

// render writes p with status and the headers every connect page carries: no caching
// (pages name users and carry one-time values), no framing (no clickjacking of the
// button), no referrer (the link's token stays out of the provider's logs).
func render(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = pageTemplate().Execute(w, p)
}
