/* One trampoline per GDAL function (gdal_symbols.def), so that no executable links libgdal at
   start-up: loading GDAL and the ~70 libraries it needs costs about 25 ms per process, and only
   ingest of OGR inputs and the writing of non-GeoJSON outputs use it.

   NAME (hidden: it does not interpose on libgdal's own NAME) jumps through rs_gdal_ptr_NAME. The
   pointer starts at rs_gdal_lazy_NAME, which saves the argument registers (System V x86-64: six
   integer, eight vector, and %al for variadic calls), lets rs_gdal_load (loader.c) dlopen GDAL
   and set every pointer to the real function, restores the registers and jumps to it. The
   arguments are never read, so one trampoline fits every signature. */

#if defined(__x86_64__) && defined(__linux__)

#define SAVE_ARGUMENTS \
    push %rdi; push %rsi; push %rdx; push %rcx; push %r8; push %r9; push %rax; \
    sub $128, %rsp; \
    movdqu %xmm0, 0(%rsp); movdqu %xmm1, 16(%rsp); movdqu %xmm2, 32(%rsp); movdqu %xmm3, 48(%rsp); \
    movdqu %xmm4, 64(%rsp); movdqu %xmm5, 80(%rsp); movdqu %xmm6, 96(%rsp); movdqu %xmm7, 112(%rsp)

#define RESTORE_ARGUMENTS \
    movdqu 0(%rsp), %xmm0; movdqu 16(%rsp), %xmm1; movdqu 32(%rsp), %xmm2; movdqu 48(%rsp), %xmm3; \
    movdqu 64(%rsp), %xmm4; movdqu 80(%rsp), %xmm5; movdqu 96(%rsp), %xmm6; movdqu 112(%rsp), %xmm7; \
    add $128, %rsp; \
    pop %rax; pop %r9; pop %r8; pop %rcx; pop %rdx; pop %rsi; pop %rdi

/* On entry %rsp is 8 mod 16 (the return address); seven pushes and 128 bytes make it 0 mod 16,
   as a call requires. */
#define RS_GDAL_SYMBOL(name) \
    .text; \
    .globl name; .hidden name; .type name, @function; \
name: \
    jmp *rs_gdal_ptr_##name(%rip); \
    .size name, . - name; \
    .type rs_gdal_lazy_##name, @function; \
rs_gdal_lazy_##name: \
    SAVE_ARGUMENTS; \
    call rs_gdal_load; \
    RESTORE_ARGUMENTS; \
    jmp *rs_gdal_ptr_##name(%rip); \
    .size rs_gdal_lazy_##name, . - rs_gdal_lazy_##name; \
    .data; .balign 8; \
    .globl rs_gdal_ptr_##name; .hidden rs_gdal_ptr_##name; \
rs_gdal_ptr_##name: \
    .quad rs_gdal_lazy_##name;

#include "gdal_symbols.def"

    .section .note.GNU-stack, "", @progbits

#else
#error "the GDAL trampolines are written for x86-64 Linux; on another architecture link libgdal directly (CGDAL module map: link \"gdal\")"
#endif
