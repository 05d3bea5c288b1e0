// Command gensession writes the resumable sessions of the session-store
// figures (see package sessiongen):
//
//	go run ./bench/gensession -events 1000000 -o st/session-gen.jsonl
//	go run ./bench/gensession -events 1000000 -ids uuid -o st/session-gen.jsonl
//	go run ./bench/gensession -messages 2790 -message-bytes 100000 -o st/session-gen.jsonl
//
// A -events session compacted its history, so its resume needs the
// history flags the command prints on stderr.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/bench/sessiongen"
)

func main() {
	var o sessiongen.Options
	flag.StringVar(&o.Session, "session", "session-gen", "session_id")
	flag.IntVar(&o.Events, "events", 1000, "agent turns until the session holds at least this many events")
	flag.IntVar(&o.Messages, "messages", 0, "instead of turns, this many uncompacted user messages")
	flag.IntVar(&o.MessageBytes, "message-bytes", 100000, "bytes of content per user message (with -messages)")
	flag.BoolVar(&o.Open, "open", false, "leave the last turn's tool call unanswered")
	ids := flag.String("ids", "evt-%03d", "event id style: evt-%03d, evt-%07d or uuid")
	out := flag.String("o", "-", "output file ('-' for standard output)")
	flag.Parse()
	style, err := sessiongen.ParseIDStyle(*ids)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensession: -ids:", err)
		os.Exit(2)
	}
	o.IDs = style
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gensession:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	n, size, err := sessiongen.Write(w, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensession:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gensession: %d events, %d bytes\n", n, size)
	if o.Messages == 0 {
		fmt.Fprintf(os.Stderr, "gensession: resume with --system-prompt %q --compact-trigger %d --compact-keep %d --compact-summary %q\n",
			sessiongen.SystemPrompt, sessiongen.TriggerChars, sessiongen.KeepRecent, sessiongen.Summary)
	}
}
