package wire

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// This file renders the pieces of a scripted fault that depend on the API:
// a provider's error answer (status, body, retry headers) and a stream
// event or body that is not valid JSON. What is cut or withheld, and when
// the connection breaks, is the server's business.

// StatusError is the error answer the API called gives with status: its
// error type (and OpenAI's code) for the status, and message, or when
// message is "", the API's own message for it. With retryAfter >= 0 an
// OpenAI 429's message ends "Please try again in Ns." as OpenAI's does
// (Codex reads the delay from there).
//
// OpenAI (Chat Completions and Responses): 429 type "requests" and code
// "rate_limit_exceeded" (what the API sends for a request rate limit),
// 5xx type "server_error", other statuses "invalid_request_error" (401
// with code "invalid_api_key"). Anthropic: 400 invalid_request_error, 401
// authentication_error, 402 billing_error, 403 permission_error, 404
// not_found_error, 413 request_too_large, 429 rate_limit_error, 500
// api_error, 504 timeout_error, 529 overloaded_error; other 4xx
// invalid_request_error, other 5xx api_error.
func StatusError(api API, status int, message string, retryAfter time.Duration) *Error {
	e := &Error{Status: status}
	def := ""
	if api == AnthropicMessages {
		e.Type, def = anthropicStatus(status)
	} else {
		e.Type, e.Code, def = openAIStatus(status)
		if status == 429 && retryAfter >= 0 {
			def += " Please try again in " + seconds(retryAfter) + "s."
		}
	}
	e.Message = message
	if e.Message == "" {
		e.Message = def
	}
	return e
}

func openAIStatus(status int) (typ, code, message string) {
	switch {
	case status == 429:
		return "requests", "rate_limit_exceeded", "Rate limit reached for requests (a scripted fault of tracecheck's model server)."
	case status == 401:
		return TypeInvalidRequest, "invalid_api_key", "Incorrect API key provided."
	case status == 503:
		return "server_error", "", "The server is overloaded or not ready yet."
	case status >= 500:
		return "server_error", "", "The server had an error while processing your request. Sorry about that!"
	}
	return TypeInvalidRequest, "", statusText(status)
}

func anthropicStatus(status int) (typ, message string) {
	switch status {
	case 400:
		return TypeInvalidRequest, "Invalid request."
	case 401:
		return "authentication_error", "invalid x-api-key"
	case 402:
		return "billing_error", "Your credit balance is too low to access the Anthropic API."
	case 403:
		return "permission_error", "Your API key does not have permission to use the specified resource."
	case 404:
		return TypeNotFound, "Not found."
	case 413:
		return TypeTooLarge, "Request exceeds the maximum allowed number of bytes."
	case 429:
		return "rate_limit_error", "This request would exceed your organization's rate limit (a scripted fault of tracecheck's model server)."
	case 500:
		return TypeAPIError, "Internal server error"
	case 504:
		return "timeout_error", "Request timed out"
	case 529:
		return "overloaded_error", "Overloaded"
	}
	if status >= 500 {
		return TypeAPIError, statusText(status)
	}
	return TypeInvalidRequest, statusText(status)
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(status)
}

// seconds formats d in seconds, as short as it is exact to the
// millisecond: 1, 0.25, 1.5.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(math.Round(float64(d)/float64(time.Millisecond))/1000, 'f', -1, 64)
}

// Header is one response header.
type Header struct{ Name, Value string }

// RetryHeaders are the headers of an error answer with status that asks
// the client to wait retryAfter (none when retryAfter < 0): retry-after in
// whole seconds, rounded up (RFC 9110's delay-seconds, what the API
// sends), and retry-after-ms in milliseconds, which the official OpenAI
// and Anthropic SDKs read first; for a 429 also the API's request rate
// limit headers, their reset retryAfter after now (OpenAI's
// x-ratelimit-*-requests, the reset a duration such as "1s"; Anthropic's
// anthropic-ratelimit-requests-*, the reset an RFC 3339 time).
func RetryHeaders(api API, status int, retryAfter time.Duration, now time.Time) []Header {
	if retryAfter < 0 {
		return nil
	}
	ms := math.Round(float64(retryAfter) / float64(time.Millisecond))
	out := []Header{
		{"retry-after", strconv.FormatInt(int64(math.Ceil(ms/1000)), 10)},
		{"retry-after-ms", strconv.FormatInt(int64(ms), 10)},
	}
	if status != 429 {
		return out
	}
	if api == AnthropicMessages {
		return append(out,
			Header{"anthropic-ratelimit-requests-limit", "50"},
			Header{"anthropic-ratelimit-requests-remaining", "0"},
			Header{"anthropic-ratelimit-requests-reset", now.Add(retryAfter).UTC().Format(time.RFC3339)},
		)
	}
	return append(out,
		Header{"x-ratelimit-limit-requests", "60"},
		Header{"x-ratelimit-remaining-requests", "0"},
		Header{"x-ratelimit-reset-requests", time.Duration(ms * float64(time.Millisecond)).String()},
	)
}

// MalformedEvent is ev, one server-sent event, with its data cut to half
// its length (at a character boundary), so that it is not valid JSON but
// still a complete event that a client's SSE parser hands to its JSON
// parser; ok is false when ev carries no JSON object to cut (OpenAI's
// "data: [DONE]") or is one that clients skip unparsed (Anthropic's ping).
func MalformedEvent(ev []byte) (out []byte, ok bool) {
	if bytes.HasPrefix(ev, []byte("event: ping\n")) {
		return nil, false
	}
	i := bytes.Index(ev, []byte("data: {"))
	if i < 0 || i > 0 && ev[i-1] != '\n' {
		return nil, false
	}
	start := i + len("data: ")
	end := bytes.IndexByte(ev[start:], '\n')
	if end < 0 {
		end = len(ev) - start
	}
	data := ev[start : start+end]
	out = append(append([]byte(nil), ev[:start]...), halve(data)...)
	return append(out, '\n', '\n'), true
}

// MalformedBody is body cut to half its length (at a character boundary):
// not valid JSON.
func MalformedBody(body []byte) []byte { return halve(body) }

// halve is the first half of a JSON text, at least one byte, cut at a
// character boundary: a proper prefix of an object or array is never valid
// JSON.
func halve(b []byte) []byte {
	n := max(1, len(b)/2)
	for n < len(b) && !utf8.RuneStart(b[n]) {
		n++
	}
	if n >= len(b) {
		n = len(b) - 1
	}
	return append([]byte(nil), b[:n]...)
}
