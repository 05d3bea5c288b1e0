package agentlog

// fixKind is what lint --repair does about one finding.
type fixKind uint8

const (
	fixSideline fixKind = iota + 1 // move the line to the side file
	fixSplit                       // write each whole record on its own line; torn bytes to the side file
	fixNewline                     // end the last line with its newline
	fixUTF8                        // replace bytes that are not UTF-8 with U+FFFD
	fixAnswer                      // insert the agent's own result for an interrupted call after the call's line
	fixRelink                      // point the entry's parent link at the one entry that fits
)

// fix is one repair, attached to the finding it answers.
type fix struct {
	kind   fixKind
	line   int
	parts  [][2]int // fixSplit
	torn   bool     // fixSplit: torn bytes surround the parts
	call   *openCall
	parent string // fixRelink
}
