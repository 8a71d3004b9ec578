/* pro_native.h - the section tags of mprof's native format, shared by its
 * reader (pro_native.c) and its writer (pro_native_write.c). */
#ifndef MPROF_PRO_NATIVE_H
#define MPROF_PRO_NATIVE_H

#include <stdint.h>

#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define T_META TAG('M', 'E', 'T', 'A')
#define T_MODS TAG('M', 'O', 'D', 'S')
#define T_FRMS TAG('F', 'R', 'M', 'S')
#define T_STKS TAG('S', 'T', 'K', 'S')
#define T_SMPL TAG('S', 'M', 'P', 'L')
#define T_PEAK TAG('P', 'E', 'A', 'K')
#define T_END  TAG('E', 'N', 'D', ' ')

#endif
