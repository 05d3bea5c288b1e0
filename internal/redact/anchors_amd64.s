#include "textflag.h"

// The pairs, as little-endian words: "k-", "xo", "gh", "_p", "AK", "Be"
// and `":`.
DATA pairs<>+0(SB)/2, $0x2d6b
DATA pairs<>+2(SB)/2, $0x6f78
DATA pairs<>+4(SB)/2, $0x6867
DATA pairs<>+6(SB)/2, $0x705f
DATA pairs<>+8(SB)/2, $0x4b41
DATA pairs<>+10(SB)/2, $0x6542
DATA pairs<>+12(SB)/2, $0x3a22
GLOBL pairs<>(SB), RODATA|NOPTR, $14

// func pairMaskAVX2(s []byte) (off int, mask uint32)
//
// Finds the first 32-byte block of s (at an offset that is a multiple of
// 32, with the byte after the block in s too) in which one of the pairs
// of mayHold starts: an anchor's first two bytes ("k-", "xo", "gh", "_p",
// "AK", "Be") or a key's end (`":`). It returns the block's offset and a
// bit per byte of it where a pair starts; mask 0 when there is none, and
// then off is where the tail of fewer than 33 bytes begins. Each block is
// compared as 16-bit words twice, at its start (pairs at even positions)
// and one byte on (pairs at odd positions).
TEXT ·pairMaskAVX2(SB), NOSPLIT, $0-36
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	XORQ AX, AX
	VPBROADCASTW pairs<>+0(SB), Y0
	VPBROADCASTW pairs<>+2(SB), Y1
	VPBROADCASTW pairs<>+4(SB), Y2
	VPBROADCASTW pairs<>+6(SB), Y3
	VPBROADCASTW pairs<>+8(SB), Y4
	VPBROADCASTW pairs<>+10(SB), Y5
	VPBROADCASTW pairs<>+12(SB), Y6

loop:
	MOVQ BX, CX
	SUBQ AX, CX
	CMPQ CX, $33
	JLT  tail
	VMOVDQU (SI)(AX*1), Y7
	VMOVDQU 1(SI)(AX*1), Y8
	VPCMPEQW Y7, Y0, Y9
	VPCMPEQW Y8, Y0, Y10
	VPCMPEQW Y7, Y1, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y1, Y11
	VPOR     Y11, Y10, Y10
	VPCMPEQW Y7, Y2, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y2, Y11
	VPOR     Y11, Y10, Y10
	VPCMPEQW Y7, Y3, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y3, Y11
	VPOR     Y11, Y10, Y10
	VPCMPEQW Y7, Y4, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y4, Y11
	VPOR     Y11, Y10, Y10
	VPCMPEQW Y7, Y5, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y5, Y11
	VPOR     Y11, Y10, Y10
	VPCMPEQW Y7, Y6, Y11
	VPOR     Y11, Y9, Y9
	VPCMPEQW Y8, Y6, Y11
	VPOR     Y11, Y10, Y10
	// A matching word sets the two bits of its bytes; keep the first.
	VPMOVMSKB Y9, DX
	VPMOVMSKB Y10, R8
	ANDL $0x55555555, DX
	ANDL $0x55555555, R8
	SHLL $1, R8
	ORL  R8, DX
	JNZ  found
	ADDQ $32, AX
	JMP  loop

found:
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVL DX, mask+32(FP)
	RET

tail:
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVL $0, mask+32(FP)
	RET
