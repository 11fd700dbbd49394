/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/export.h — how the headers declare functions.
 *
 *   TSR_API            a function exported by libtessera (tessera.h). On
 *                      Windows it is dllexport while the library itself is
 *                      built (TSR_BUILDING_LIBRARY, set by Tessera's own
 *                      build), dllimport for its users, and nothing for a
 *                      static build (TSR_STATIC).
 *   TSR_PLUGIN_EXPORT  a plugin's one exported entry point (plugin.h).
 *   TSR_INLINE         the small helpers defined in the headers (dtype
 *                      sizes and names, op names, scalar constructors). They
 *                      are for C and C++ callers; callers through an FFI
 *                      (Rust, Fortran, Python) use the exported twins in
 *                      tessera.h, such as tsr_dtype_itemsize. `static
 *                      inline` where the language has it, plain `static`
 *                      (marked unused) in C89, so that the headers compile
 *                      as C89 too.
 *   TSR_CONSTEXPR      `constexpr` in C++14 and later, nothing elsewhere:
 *                      the op table's helpers (ops.h) are then constant
 *                      expressions, which C++ code may use in static_assert
 *                      and if constexpr.
 */
#ifndef TESSERA_EXPORT_H
#define TESSERA_EXPORT_H

#if defined(_WIN32)
#if defined(TSR_STATIC)
#define TSR_API
#elif defined(TSR_BUILDING_LIBRARY)
#define TSR_API __declspec(dllexport)
#else
#define TSR_API __declspec(dllimport)
#endif
#define TSR_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TSR_API __attribute__((visibility("default")))
#define TSR_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define TSR_INLINE static inline
#elif defined(__GNUC__)
#define TSR_INLINE static __inline__ __attribute__((unused))
#else
#define TSR_INLINE static
#endif

#if defined(__cplusplus) && __cplusplus >= 201402L
#define TSR_CONSTEXPR constexpr
#else
#define TSR_CONSTEXPR
#endif

#endif /* TESSERA_EXPORT_H */
