#!/bin/sh
# Answers hello, then answers every request with the id 99.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"wrong-id","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
while read -r request; do
	echo '{"id":99,"ok":false,"error":{"message":"not implemented"}}'
done
