/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/asi.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_ASI_H
#define _UAPI_LINUX_ASI_H

#define ASI_FAMILY_NAME		"asi"
#define ASI_FAMILY_VERSION	1

/**
 * enum asi_stun_policy - Whether SMT siblings are stunned while a CPU runs in
 *   a restricted address space; stunning stops a sibling from touching
 *   sensitive data that the restricted context could sample.
 * @ASI_STUN_POLICY_OFF: Siblings keep running; cheaper, relies on other
 *   mitigations.
 * @ASI_STUN_POLICY_ON: Siblings are stunned while the restricted space is
 *   live.
 */
enum asi_stun_policy {
	ASI_STUN_POLICY_OFF,
	ASI_STUN_POLICY_ON,
};

/**
 * enum asi_class_flags - Properties of a class, fixed when the class is
 *   registered.
 * @ASI_CLASS_FLAGS_MAP_STANDARD: The class maps the standard global
 *   non-sensitive memory, so marks added at run time apply to it.
 */
enum asi_class_flags {
	ASI_CLASS_FLAGS_MAP_STANDARD = 1,
};

/**
 * enum asi_mark_kind - How a mark names the memory it makes non-sensitive.
 * @ASI_MARK_KIND_RANGE: A virtual address range (addr, len), for memory with
 *   no name.
 * @ASI_MARK_KIND_SYMBOL: A kernel symbol (name), so the range survives KASLR.
 * @ASI_MARK_KIND_CACHE: A slab cache (name): its existing and future slabs
 *   become non-sensitive.
 */
enum asi_mark_kind {
	ASI_MARK_KIND_RANGE = 1,
	ASI_MARK_KIND_SYMBOL,
	ASI_MARK_KIND_CACHE,
};

/**
 * enum asi_exit_reason - Why a CPU left a restricted address space. Used by
 *   tools to name exits; the counters themselves are the exits-* attributes of
 *   stats.
 * @ASI_EXIT_REASON_EXPLICIT: The kernel called asi_exit() itself.
 * @ASI_EXIT_REASON_PAGE_FAULT: An access to sensitive (unmapped) memory
 *   faulted.
 * @ASI_EXIT_REASON_SCHEDULE: The CPU switched to another task.
 * @ASI_EXIT_REASON_RETURN_TO_USER: The CPU went back to userspace.
 * @ASI_EXIT_REASON_MM_SWITCH: The CPU switched to another mm.
 */
enum asi_exit_reason {
	ASI_EXIT_REASON_EXPLICIT,
	ASI_EXIT_REASON_PAGE_FAULT,
	ASI_EXIT_REASON_SCHEDULE,
	ASI_EXIT_REASON_RETURN_TO_USER,
	ASI_EXIT_REASON_MM_SWITCH,
};

enum {
	ASI_A_STATUS_ENABLED = 1,
	ASI_A_STATUS_PCID,
	ASI_A_STATUS_CLASSES,
	ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES,
	ASI_A_STATUS_STUN_DEFAULT,
	ASI_A_STATUS_MARKS,

	__ASI_A_STATUS_MAX,
	ASI_A_STATUS_MAX = (__ASI_A_STATUS_MAX - 1)
};

enum {
	ASI_A_STATS_ENTERS = 1,
	ASI_A_STATS_EXITS_EXPLICIT,
	ASI_A_STATS_EXITS_PAGE_FAULT,
	ASI_A_STATS_EXITS_SCHEDULE,
	ASI_A_STATS_EXITS_RETURN_TO_USER,
	ASI_A_STATS_EXITS_MM_SWITCH,
	ASI_A_STATS_TLB_FLUSHES,
	ASI_A_STATS_FAULTS_HANDLED,
	ASI_A_STATS_L1D_FLUSHES,
	ASI_A_STATS_CPU_BUFFER_CLEARS,
	ASI_A_STATS_IBPBS,
	ASI_A_STATS_STUNS,
	ASI_A_STATS_STUNNED_NS,
	ASI_A_STATS_STUN_TIMEOUTS,
	ASI_A_STATS_CPU,

	__ASI_A_STATS_MAX,
	ASI_A_STATS_MAX = (__ASI_A_STATS_MAX - 1)
};

enum {
	ASI_A_CLASS_ID = 1,
	ASI_A_CLASS_NAME,
	ASI_A_CLASS_FLAGS,
	ASI_A_CLASS_INSTANCES,
	ASI_A_CLASS_STUN,
	ASI_A_CLASS_STATS,
	ASI_A_CLASS_PER_CPU,
	ASI_A_CLASS_CPU_STATS,

	__ASI_A_CLASS_MAX,
	ASI_A_CLASS_MAX = (__ASI_A_CLASS_MAX - 1)
};

enum {
	ASI_A_MARK_ID = 1,
	ASI_A_MARK_KIND,
	ASI_A_MARK_ADDR,
	ASI_A_MARK_LEN,
	ASI_A_MARK_NAME,
	ASI_A_MARK_PAGES,

	__ASI_A_MARK_MAX,
	ASI_A_MARK_MAX = (__ASI_A_MARK_MAX - 1)
};

enum {
	ASI_A_EXIT_ADDR = 1,
	ASI_A_EXIT_IP,
	ASI_A_EXIT_SYMBOL,
	ASI_A_EXIT_COUNT,
	ASI_A_EXIT_CLASS_ID,
	ASI_A_EXIT_CLASS_NAME,
	ASI_A_EXIT_TOP,

	__ASI_A_EXIT_MAX,
	ASI_A_EXIT_MAX = (__ASI_A_EXIT_MAX - 1)
};

enum {
	ASI_CMD_STATUS_GET = 1,
	ASI_CMD_CLASS_GET,
	ASI_CMD_STATS_RESET,
	ASI_CMD_STUN_GET,
	ASI_CMD_STUN_SET,
	ASI_CMD_MARK_ADD,
	ASI_CMD_MARK_DEL,
	ASI_CMD_MARK_GET,
	ASI_CMD_EXITS_GET,
	ASI_CMD_CLASS_ADD_NTF,
	ASI_CMD_CLASS_DEL_NTF,
	ASI_CMD_STUN_NTF,
	ASI_CMD_MARK_ADD_NTF,
	ASI_CMD_MARK_DEL_NTF,

	__ASI_CMD_MAX,
	ASI_CMD_MAX = (__ASI_CMD_MAX - 1)
};

#define ASI_MCGRP_MONITOR	"monitor"

#endif /* _UAPI_LINUX_ASI_H */
