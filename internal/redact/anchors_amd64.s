#include "textflag.h"

// func anchorBlockAVX2(s []byte) int
//
// Returns the offset (a multiple of 32) of the first 32-byte block of s in
// which a pair of bytes that starts an anchor begins (see anchorPairs), or
// the offset of the tail that has fewer than 33 bytes left (a pair at the
// block's last position needs the byte after it). Each block is compared
// as 16-bit words twice, at the block's start and one byte on, so that a
// pair is seen at even and at odd positions alike.
TEXT ·anchorBlockAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	XORQ AX, AX
	// The six pairs, little-endian: "k-", "xo", "gh", "_p", "AK", "Be".
	MOVL $0x2d6b, DX
	MOVQ DX, X0
	VPBROADCASTW X0, Y0
	MOVL $0x6f78, DX
	MOVQ DX, X1
	VPBROADCASTW X1, Y1
	MOVL $0x6867, DX
	MOVQ DX, X2
	VPBROADCASTW X2, Y2
	MOVL $0x705f, DX
	MOVQ DX, X3
	VPBROADCASTW X3, Y3
	MOVL $0x4b41, DX
	MOVQ DX, X4
	VPBROADCASTW X4, Y4
	MOVL $0x6542, DX
	MOVQ DX, X5
	VPBROADCASTW X5, Y5

loop:
	MOVQ BX, CX
	SUBQ AX, CX
	CMPQ CX, $33
	JLT  done
	VMOVDQU (SI)(AX*1), Y6
	VMOVDQU 1(SI)(AX*1), Y7
	VPCMPEQW Y6, Y0, Y8
	VPCMPEQW Y7, Y0, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y6, Y1, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y7, Y1, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y6, Y2, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y7, Y2, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y6, Y3, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y7, Y3, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y6, Y4, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y7, Y4, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y6, Y5, Y9
	VPOR     Y9, Y8, Y8
	VPCMPEQW Y7, Y5, Y9
	VPOR     Y9, Y8, Y8
	VPTEST   Y8, Y8
	JNZ      done
	ADDQ $32, AX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
