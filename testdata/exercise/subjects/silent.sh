#!/bin/sh
# Never answers, not even hello: it reads its stdin until tracecheck gives up
# on it (--startup-timeout) and kills it.
cat >/dev/null
