/* SPDX-License-Identifier: GPL-2.0 */
/*
 * asictl: the operator's CLI for ASI, over the "asi" generic netlink
 * family (uapi/asi.yaml, uapi/linux/asi.h).
 *
 * Layers, each in its own file:
 *   args.c     command line -> struct asictl_args (no I/O)
 *   msg.c      struct asictl_args -> request messages (no I/O)
 *   reply.c    reply messages -> structs, acks, errors and extack (no I/O)
 *   print.c    one output layer for text and JSON, and the renderers
 *   session.c  request/reply exchanges and family lookup over the seam
 *   io.c       the seam: the libmnl socket (replaced in the unit tests)
 *   cmds.c     the commands
 *   main.c     main()
 */
#ifndef ASICTL_H
#define ASICTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/asi.h>

#define ASICTL_VERSION "1.0"

/* Exit codes; asictl(8) documents them. */
enum asictl_exit {
	ASICTL_EXIT_OK = 0,
	ASICTL_EXIT_USAGE = 1,		/* bad command line */
	ASICTL_EXIT_KERNEL = 2,		/* the kernel refused the request */
	ASICTL_EXIT_DISABLED = 3,	/* no "asi" family: ASI is disabled */
	ASICTL_EXIT_PERM = 4,		/* permission denied */
	ASICTL_EXIT_SYSTEM = 5,		/* netlink or system error, bad reply */
};

/* ---- args.c ---- */

enum asictl_op {
	ASICTL_OP_HELP,
	ASICTL_OP_VERSION,
	ASICTL_OP_STATUS,
	ASICTL_OP_CLASS_SHOW,
	ASICTL_OP_STATS,
	ASICTL_OP_STATS_RESET,
	ASICTL_OP_STUN_SHOW,
	ASICTL_OP_STUN_SET,
	ASICTL_OP_MARK_ADD,
	ASICTL_OP_MARK_DEL,
	ASICTL_OP_MARK_LIST,
	ASICTL_OP_EXITS,
	ASICTL_OP_MONITOR,
	ASICTL_OP_AUDIT,
};

/* A class named on the command line: a name, or a number for its id. */
struct asictl_class_ref {
	const char *name;	/* as given; NULL when no class was given */
	bool by_id;
	uint32_t id;		/* valid when by_id */
};

struct asictl_args {
	enum asictl_op op;
	bool json, pretty;
	bool per_cpu;
	struct asictl_class_ref class;
	uint32_t stun;		/* stun on|off: enum asi_stun_policy */
	uint32_t mark_kind;	/* mark add: enum asi_mark_kind */
	uint64_t addr, len;	/* mark add ADDR LEN */
	const char *name;	/* mark add SYMBOL / --cache NAME */
	uint32_t mark_id;	/* mark del ID */
	uint32_t top;		/* exits --top N; 0 when not given */
	const char *topic;	/* OBJECT help: the object; NULL for all */
	char space[64];		/* audit: "global", or "CLASS PID N" */
	bool summary;		/* audit --summary */
};

int asictl_parse_args(int argc, char **argv, struct asictl_args *a, FILE *err);
int asictl_parse_u32(const char *s, uint32_t *v);
int asictl_parse_u64(const char *s, uint64_t *v);
void asictl_usage(FILE *fp);
void asictl_usage_topic(FILE *fp, const char *topic);

/* ---- msg.c ---- */

/* Large enough for any request; longer arguments are refused. */
#define ASICTL_REQ_SIZE 1024

struct nlmsghdr *asictl_msg_getfamily(void *buf, const char *name);
struct nlmsghdr *asictl_msg_status_get(void *buf, uint16_t family);
struct nlmsghdr *asictl_msg_class_get(void *buf, uint16_t family,
				      const struct asictl_class_ref *ref,
				      bool per_cpu);
struct nlmsghdr *asictl_msg_stats_reset(void *buf, uint16_t family,
					uint32_t id);
struct nlmsghdr *asictl_msg_stun_get(void *buf, uint16_t family, uint32_t id);
struct nlmsghdr *asictl_msg_stun_set(void *buf, uint16_t family, uint32_t id,
				     uint32_t stun);
struct nlmsghdr *asictl_msg_mark_add(void *buf, uint16_t family,
				     const struct asictl_args *a);
struct nlmsghdr *asictl_msg_mark_del(void *buf, uint16_t family, uint32_t id);
struct nlmsghdr *asictl_msg_mark_get(void *buf, uint16_t family, uint32_t id);
struct nlmsghdr *asictl_msg_exits_get(void *buf, uint16_t family,
				      uint32_t top, uint32_t class_id);
const char *asictl_cmd_name(unsigned int cmd);

/* ---- reply.c ---- */

/* What went wrong, for the message on stderr and the exit code. */
struct asictl_err {
	int err;		/* negative errno, 0 when all is well */
	bool kernel;		/* the kernel answered with this error */
	bool absent;		/* the family is not registered */
	char msg[256];		/* extack message, or our own reason */
	char attr[32];		/* the attribute extack pointed at */
	char warning[256];	/* extack message of a request that succeeded */
};

void asictl_err_set(struct asictl_err *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int asictl_err_exit(const struct asictl_err *e);
void asictl_err_print(FILE *fp, const char *what, const struct asictl_err *e);

/* A bit per attribute type present in a reply. */
#define ASICTL_HAS(x, type)	(((x)->has >> (type)) & 1)

struct asictl_status {
	uint32_t has;
	uint8_t enabled, pcid;
	uint32_t classes, stun_default, marks;
	uint64_t global_nonsensitive_bytes;
};

struct asictl_stats {
	uint32_t has;
	uint64_t v[ASI_A_STATS_MAX + 1];	/* indexed by ASI_A_STATS_* */
};

struct asictl_class {
	uint32_t has;
	uint32_t id, flags, instances, stun;
	char *name;
	struct asictl_stats stats;
	struct asictl_stats *cpus;		/* cpu-stats, in reply order */
	size_t ncpus;
};

struct asictl_mark {
	uint32_t has;
	uint32_t id, kind;
	uint64_t addr, len, pages;
	char *name;
};

struct asictl_exit_ent {
	uint32_t has;
	uint64_t addr, ip, count;
	uint32_t class_id;
	char *symbol, *class_name;
};

struct asictl_family {
	uint16_t id;
	uint32_t version;
	uint32_t monitor_group;		/* 0: none */
	uint32_t ops[(ASI_CMD_MAX + 32) / 32];	/* bit per supported op */
	bool ops_known;
};

int asictl_parse_status(const struct nlmsghdr *nlh, struct asictl_status *st,
			struct asictl_err *e);
int asictl_parse_class(const struct nlmsghdr *nlh, struct asictl_class *c,
		       struct asictl_err *e);
void asictl_class_free(struct asictl_class *c);
int asictl_parse_mark(const struct nlmsghdr *nlh, struct asictl_mark *m,
		      struct asictl_err *e);
void asictl_mark_free(struct asictl_mark *m);
int asictl_parse_exit(const struct nlmsghdr *nlh, struct asictl_exit_ent *x,
		      struct asictl_err *e);
void asictl_exit_free(struct asictl_exit_ent *x);
int asictl_parse_family(const struct nlmsghdr *nlh, struct asictl_family *f,
			struct asictl_err *e);
bool asictl_family_has_op(const struct asictl_family *f, unsigned int cmd);

/* Called for each reply message of a request; returns 0 or -errno. */
typedef int (*asictl_msg_cb)(const struct nlmsghdr *nlh, void *data,
			     struct asictl_err *e);

/*
 * Process one received buffer of replies to @req: returns 1 when more is
 * to come, 0 when the exchange is over (ack or end of dump), or -errno
 * with @e filled in (kernel error with its extack, or a malformed reply).
 */
int asictl_process(const struct nlmsghdr *req, uint32_t portid,
		   const void *buf, size_t len, asictl_msg_cb cb, void *data,
		   struct asictl_err *e);

/* ---- io.c: the seam ---- */

struct mnl_socket;

struct asictl_io {
	struct mnl_socket *sock;
	uint32_t portid;
};

int asictl_io_open(struct asictl_io *io);
int asictl_io_join(struct asictl_io *io, uint32_t group);
ssize_t asictl_io_send(struct asictl_io *io, const void *buf, size_t len);
ssize_t asictl_io_recv(struct asictl_io *io, void *buf, size_t len);
void asictl_io_close(struct asictl_io *io);

/* ---- session.c ---- */

#define ASICTL_RX_SIZE (256 * 1024)

struct asictl_nl {
	struct asictl_io io;
	struct asictl_family fam;
	uint32_t seq;
	void *rx;
	struct asictl_err err;
};

int asictl_nl_open(struct asictl_nl *nl);
int asictl_nl_transact(struct asictl_nl *nl, struct nlmsghdr *req,
		       asictl_msg_cb cb, void *data);
int asictl_nl_monitor(struct asictl_nl *nl, asictl_msg_cb cb, void *data,
		      volatile sig_atomic_t *stop);
void asictl_nl_close(struct asictl_nl *nl);

/* ---- print.c ---- */

#define ASICTL_OUT_DEPTH 8

struct asictl_out {
	FILE *fp;
	bool json, pretty;
	int depth;
	bool first[ASICTL_OUT_DEPTH];
};

void out_init(struct asictl_out *o, FILE *fp, bool json, bool pretty);
void out_obj_open(struct asictl_out *o, const char *key);
void out_obj_close(struct asictl_out *o);
void out_arr_open(struct asictl_out *o, const char *key);
void out_arr_close(struct asictl_out *o);
void out_u64(struct asictl_out *o, const char *key, const char *fmt,
	     uint64_t v);
void out_hex(struct asictl_out *o, const char *key, const char *fmt,
	     uint64_t v);
void out_str(struct asictl_out *o, const char *key, const char *fmt,
	     const char *s);
void out_bool(struct asictl_out *o, const char *key, const char *fmt, bool b);
void out_text(struct asictl_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_json_string(FILE *fp, const char *s);

const char *asictl_stun_name(uint32_t stun);
const char *asictl_kind_name(uint32_t kind);
extern const char *const asictl_stats_names[ASI_A_STATS_MAX + 1];

void asictl_render_status(struct asictl_out *o, const struct asictl_status *st);
void asictl_render_class_head(struct asictl_out *o);
void asictl_render_class(struct asictl_out *o, const struct asictl_class *c);
void asictl_render_stats(struct asictl_out *o, const struct asictl_class *c,
			 bool per_cpu);
void asictl_render_stun(struct asictl_out *o, const char *name, uint32_t id,
			uint32_t stun);
void asictl_render_mark_head(struct asictl_out *o);
void asictl_render_mark(struct asictl_out *o, const struct asictl_mark *m);
void asictl_render_exit_head(struct asictl_out *o);
void asictl_render_exit(struct asictl_out *o, const struct asictl_exit_ent *x);
int asictl_render_event(struct asictl_out *o, const struct nlmsghdr *nlh,
			struct asictl_err *e);

/* ---- cmds.c ---- */

int asictl_run(const struct asictl_args *a, FILE *out, FILE *err);

/* ---- audit.c ---- */

/* Where the kernel lists what a restricted space maps, by owner. */
#define ASICTL_AUDIT_PATH "/sys/kernel/debug/asi/audit"

struct asictl_audit_range {
	uint64_t start, end, bytes;
	char kind[16];
	char *owner;
};

struct asictl_audit_total {
	char kind[16];
	uint64_t bytes;
	char *reason;
};

struct asictl_audit {
	struct asictl_audit_range *ranges;
	size_t nranges;
	struct asictl_audit_total *totals;
	size_t ntotals;
	uint64_t all;
	bool has_all;
};

int asictl_parse_audit(const char *text, struct asictl_audit *au,
		       struct asictl_err *e);
void asictl_audit_free(struct asictl_audit *au);
uint64_t asictl_audit_bytes(const struct asictl_audit *au, const char *kind);
void asictl_render_audit(struct asictl_out *o, const char *space,
			 const struct asictl_audit *au, bool summary);

#endif /* ASICTL_H */
