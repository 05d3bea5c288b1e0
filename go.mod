module github.com/tracecheck/tracecheck

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/pmezard/go-difflib v1.0.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/sebdah/goldie/v2 v2.8.0
	github.com/spf13/pflag v1.1.0
	golang.org/x/sys v0.50.0
)

require github.com/sergi/go-diff v1.0.0 // indirect

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
)

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
