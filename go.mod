module countsim

go 1.26.0

require (
	codeberg.org/go-fonts/liberation v0.5.0
	github.com/axiomhq/hyperloglog v0.3.0
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/tylertreat/BoomFilters v0.0.0-20251001182300-5b3723cc64ae
	go.yaml.in/yaml/v3 v3.0.6
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/plot v0.17.0
)

require (
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/d4l3k/messagediff v1.2.1 // indirect
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/kamstrup/intmap v0.5.2 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
