/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/version.h — the ABI version and the rules for changing it.
 *
 * The ABI version is a (major, minor) pair, packed as TSR_ABI_VERSION.
 *
 * The package version, the pkg-config version and the SONAME follow the ABI:
 * the top CMakeLists.txt reads TSR_ABI_VERSION_MAJOR and _MINOR below, so the
 * package is MAJOR.MINOR.0 (find_package(Tessera 1.N) takes any 1.x from 1.N
 * on, never another major; `pkg-config --modversion tessera` says the same),
 * and libtessera's SONAME is libtessera.so.MAJOR. There is no other version
 * number to bump.
 *
 * Rules (see also the note "Extensible structs" in tessera/status.h):
 *  - MINOR bump: something was *appended*: a field at the end of a struct
 *    that starts with `size_t struct_size`, a new optional slot at the end of
 *    an interface table, a new enum value (op, dtype, status) at the end of
 *    its list, a new function in the public API. Old plugins keep working on a
 *    newer runtime and new plugins on an older runtime, because each side
 *    reads at most min(its own sizeof, the other's struct_size) bytes and
 *    treats anything past that as absent (NULL / zero).
 *  - MAJOR bump: anything else — a field removed, reordered, resized or whose
 *    meaning changed, a frozen value type (tsr_device, tsr_scalar,
 *    tsr_kernel_entry) changed, a required slot added. The runtime refuses a
 *    plugin of another major version before calling anything else, with a
 *    message that names both versions.
 *  - Negotiation: the runtime passes its version in tsr_plugin_init_args; the
 *    plugin answers with the version it was built against in
 *    tsr_plugin_api.abi_version. Both then use only what the smaller minor
 *    version defines.
 *
 * History:
 *   1.0  the first ABI.
 *   1.1  tsr_device_iface.memory_stats (optional slot, appended);
 *        tsr_empty_cache, tsr_get_memory_stats and struct tsr_memory_stats in the
 *        public API.
 *   1.2  tsr_binary_out, tsr_binary_scalar_out, tsr_unary_out and
 *        tsr_matmul_out in the public API (the plugin ABI is unchanged: a 1.1
 *        plugin is a 1.2 one); tsr_binary_ and tsr_binary_scalar_ take the
 *        comparisons too (a = a < b, as PyTorch's lt_); tessera/element.h
 *        (inline helpers, no new symbols).
 *   1.3  tsr_set_float32_matmul_precision, tsr_get_float32_matmul_precision
 *        and enum tsr_matmul_precision in the public API; MATMUL's params[0]
 *        carries that precision (it was 0 or 1, "TF32 allowed", which the
 *        new values keep meaning).
 *   1.4  tessera/export.h (TSR_API, TSR_PLUGIN_EXPORT, TSR_INLINE: the headers
 *        compile as C89) and tessera/scalar.h (tsr_scalar moved out of
 *        plugin.h, unchanged, with constructors); tsr_runtime_options.
 *        abi_version and reserved2 (appended) with TSR_RUNTIME_OPTIONS_INIT;
 *        tsr_runtime_destroy returns a tsr_status (was void);
 *        tsr_clear_last_error, tsr_dtype_itemsize, tsr_dtype_get_name,
 *        tsr_op_get_name, tsr_op_count, tsr_struct_size,
 *        tsr_device_is_host_accessible, tsr_tensor_is_host_accessible,
 *        tsr_tensor_get_item, tsr_tensor_set_item, tsr_copy_to_host and
 *        tsr_copy_from_host in the public API; the op table in ops.h
 *        (TSR_OP_LIST, enum tsr_op_kind, the inline tsr_op_kind and
 *        tsr_op_arity; the op values are unchanged) and TSR_CONSTEXPR. The
 *        plugin ABI is unchanged (a 1.3 plugin is a 1.4 one); its contracts
 *        are written out (plugin.h).
 */
#ifndef TESSERA_VERSION_H
#define TESSERA_VERSION_H

#include <stdint.h>

#define TSR_ABI_VERSION_MAJOR 1
#define TSR_ABI_VERSION_MINOR 4

/* Packs (major, minor) into one uint32_t: major in the high 16 bits. */
#define TSR_MAKE_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xFFFFu)))
#define TSR_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define TSR_VERSION_MINOR(v) ((uint32_t)(v) & 0xFFFFu)

#define TSR_ABI_VERSION TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR)

#endif /* TESSERA_VERSION_H */
