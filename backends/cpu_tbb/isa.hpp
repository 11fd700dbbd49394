// SPDX-License-Identifier: Apache-2.0
// Per-ISA code in a plugin built for baseline x86-64 (Note [Loops cloned per
// ISA level] in cloned_loops.hpp): the attributes, where the compiler and
// platform support them, and nothing elsewhere (baseline code only).
#pragma once

// GCC's target_clones: one body per listed ISA level plus an ifunc resolver
// that picks one when the library loads (ELF and glibc only). Off under
// ThreadSanitizer, which instruments the resolvers, and they run before it
// is initialised.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__) && \
    !defined(__SANITIZE_THREAD__)
#define TSR_HAVE_CLONES 1
#define TSR_CLONES_V4_V3 [[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#define TSR_CLONES_V3 [[gnu::target_clones("arch=x86-64-v3", "default")]]
#else
#define TSR_HAVE_CLONES 0
#define TSR_CLONES_V4_V3
#define TSR_CLONES_V3
#endif

// For a loop whose output never overlaps its inputs except as the very same
// elements: there is no loop-carried dependence, so vectorise without the
// run-time alias checks.
#if defined(__GNUC__) && !defined(__clang__)
#define TSR_IVDEP _Pragma("GCC ivdep")
#else
#define TSR_IVDEP
#endif
