#include "textflag.h"

// func fill64AVX2(dst *uint64, src *byte, words int)
//
// Marks words*64 bytes of src into dst[0:words]: a bit per byte that is
// '"', '\\', or below 0x20 or above 0x7f. The last two are one signed
// compare: as a signed byte, every byte from 0x80 up is negative, so
// "0x20 > byte" holds for the controls and for them.
TEXT ·fill64AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ words+16(FP), CX
	MOVL $0x22222222, AX
	MOVD AX, X0
	VPBROADCASTD X0, Y0
	MOVL $0x5c5c5c5c, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1
	MOVL $0x20202020, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2

loop:
	TESTQ CX, CX
	JZ    done
	VMOVDQU  (SI), Y3
	VMOVDQU  32(SI), Y4
	VPCMPEQB Y3, Y0, Y5
	VPCMPEQB Y3, Y1, Y6
	VPCMPGTB Y3, Y2, Y7
	VPOR     Y5, Y6, Y5
	VPOR     Y5, Y7, Y5
	VPCMPEQB Y4, Y0, Y8
	VPCMPEQB Y4, Y1, Y9
	VPCMPGTB Y4, Y2, Y10
	VPOR     Y8, Y9, Y8
	VPOR     Y8, Y10, Y8
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y8, DX
	SHLQ     $32, DX
	ORQ      DX, AX
	MOVQ     AX, (DI)
	ADDQ     $64, SI
	ADDQ     $8, DI
	DECQ     CX
	JMP      loop

done:
	VZEROUPPER
	RET
