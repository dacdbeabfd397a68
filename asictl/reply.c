// SPDX-License-Identifier: GPL-2.0
/*
 * Replies: acks, errors with their extack, and the attributes of each
 * reply, checked before use. A message or attribute that does not fit in
 * what was received, or an attribute whose size does not match its type,
 * makes the reply malformed (-EBADMSG); attributes this version does not
 * know are skipped, so a newer kernel still works.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

void asictl_err_set(struct asictl_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	memset(e, 0, sizeof(*e));
	e->err = err;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
}

/* The exit status follows the errno: EPERM and EACCES are permission. */
static bool asictl_err_is_perm(const struct asictl_err *e)
{
	return e->err == -EPERM || e->err == -EACCES;
}

int asictl_err_exit(const struct asictl_err *e)
{
	if (!e->err)
		return ASICTL_EXIT_OK;
	if (e->absent)
		return ASICTL_EXIT_DISABLED;
	if (asictl_err_is_perm(e))
		return ASICTL_EXIT_PERM;
	if (e->kernel)
		return ASICTL_EXIT_KERNEL;
	return ASICTL_EXIT_SYSTEM;
}

void asictl_err_print(FILE *fp, const char *what, const struct asictl_err *e)
{
	if (e->absent) {
		fprintf(fp, "asictl: ASI is disabled: the kernel has no '%s' "
			"generic netlink family (booted with asi=off, or built "
			"without ASI)\n", ASI_FAMILY_NAME);
		return;
	}
	fprintf(fp, "asictl: %s: ", what);
	if (e->kernel && e->msg[0])
		fprintf(fp, "%s", e->msg);
	else if (e->kernel)
		fprintf(fp, "%s", strerror(-e->err));
	else
		fprintf(fp, "%s%s%s", e->msg, e->msg[0] ? ": " : "",
			strerror(-e->err));
	if (e->attr[0])
		fprintf(fp, " (attribute '%s')", e->attr);
	if (e->kernel && e->msg[0])
		fprintf(fp, " (%s)", strerror(-e->err));
	fputc('\n', fp);
	/* Without a reason from the kernel, say what is usually missing. */
	if (asictl_err_is_perm(e) && !e->msg[0])
		fprintf(fp, "asictl: permission denied: changing ASI needs "
			"CAP_NET_ADMIN and CAP_SYS_ADMIN (run as root)\n");
}

/* ---- attributes ---- */

/*
 * The spec's "uint" (NLA_UINT): 4 or 8 bytes, as the kernel sends what the
 * value needs. libmnl 1.0.4 has no such type; this one is ours.
 */
#define MNL_TYPE_ASI_UINT	MNL_TYPE_MAX

/* One attribute of a set: its name in uapi/asi.yaml and its libmnl type. */
struct attr_policy {
	const char *name;
	enum mnl_attr_data_type type;
};

struct attr_set {
	const char *name;
	const struct attr_policy *policy;
	unsigned int max;
	bool array;		/* a nest of entries typed 1, 2, ...: all alike */
};

#define ATTR_SET(n, p) { n, p, sizeof(p) / sizeof(p[0]) - 1, false }

/* The attribute sets of uapi/asi.yaml, types as there (and asi.h's enums). */
static const struct attr_policy status_policy[ASI_A_STATUS_MAX + 1] = {
	[ASI_A_STATUS_ENABLED] = { "enabled", MNL_TYPE_U8 },
	[ASI_A_STATUS_PCID] = { "pcid", MNL_TYPE_U8 },
	[ASI_A_STATUS_CLASSES] = { "classes", MNL_TYPE_U32 },
	[ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES] = { "global-nonsensitive-bytes", MNL_TYPE_ASI_UINT },
	[ASI_A_STATUS_STUN_DEFAULT] = { "stun-default", MNL_TYPE_U32 },
	[ASI_A_STATUS_MARKS] = { "marks", MNL_TYPE_U32 },
};

static const struct attr_policy stats_policy[ASI_A_STATS_MAX + 1] = {
	[ASI_A_STATS_ENTERS] = { "enters", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_EXITS_EXPLICIT] = { "exits-explicit", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_EXITS_PAGE_FAULT] = { "exits-page-fault", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_EXITS_SCHEDULE] = { "exits-schedule", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_EXITS_RETURN_TO_USER] = { "exits-return-to-user", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_EXITS_MM_SWITCH] = { "exits-mm-switch", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_TLB_FLUSHES] = { "tlb-flushes", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_FAULTS_HANDLED] = { "faults-handled", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_L1D_FLUSHES] = { "l1d-flushes", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_CPU_BUFFER_CLEARS] = { "cpu-buffer-clears", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_IBPBS] = { "ibpbs", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_STUNS] = { "stuns", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_STUNNED_NS] = { "stunned-ns", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_STUN_TIMEOUTS] = { "stun-timeouts", MNL_TYPE_ASI_UINT },
	[ASI_A_STATS_CPU] = { "cpu", MNL_TYPE_U32 },
};

static const struct attr_policy class_policy[ASI_A_CLASS_MAX + 1] = {
	[ASI_A_CLASS_ID] = { "id", MNL_TYPE_U32 },
	[ASI_A_CLASS_NAME] = { "name", MNL_TYPE_NUL_STRING },
	[ASI_A_CLASS_FLAGS] = { "flags", MNL_TYPE_U32 },
	[ASI_A_CLASS_INSTANCES] = { "instances", MNL_TYPE_U32 },
	[ASI_A_CLASS_STUN] = { "stun", MNL_TYPE_U32 },
	[ASI_A_CLASS_STATS] = { "stats", MNL_TYPE_NESTED },
	[ASI_A_CLASS_PER_CPU] = { "per-cpu", MNL_TYPE_FLAG },
	[ASI_A_CLASS_CPU_STATS] = { "cpu-stats", MNL_TYPE_NESTED },
};

static const struct attr_policy mark_policy[ASI_A_MARK_MAX + 1] = {
	[ASI_A_MARK_ID] = { "id", MNL_TYPE_U32 },
	[ASI_A_MARK_KIND] = { "kind", MNL_TYPE_U32 },
	[ASI_A_MARK_ADDR] = { "addr", MNL_TYPE_ASI_UINT },
	[ASI_A_MARK_LEN] = { "len", MNL_TYPE_ASI_UINT },
	[ASI_A_MARK_NAME] = { "name", MNL_TYPE_NUL_STRING },
	[ASI_A_MARK_PAGES] = { "pages", MNL_TYPE_ASI_UINT },
};

static const struct attr_policy exit_policy[ASI_A_EXIT_MAX + 1] = {
	[ASI_A_EXIT_ADDR] = { "addr", MNL_TYPE_ASI_UINT },
	[ASI_A_EXIT_IP] = { "ip", MNL_TYPE_ASI_UINT },
	[ASI_A_EXIT_SYMBOL] = { "symbol", MNL_TYPE_NUL_STRING },
	[ASI_A_EXIT_COUNT] = { "count", MNL_TYPE_ASI_UINT },
	[ASI_A_EXIT_CLASS_ID] = { "class-id", MNL_TYPE_U32 },
	[ASI_A_EXIT_CLASS_NAME] = { "class-name", MNL_TYPE_NUL_STRING },
	[ASI_A_EXIT_TOP] = { "top", MNL_TYPE_U32 },
};

/* What asictl reads of the controller's family reply (nlctrl.yaml). */
static const struct attr_policy ctrl_policy[CTRL_ATTR_MCAST_GROUPS + 1] = {
	[CTRL_ATTR_FAMILY_ID] = { "family-id", MNL_TYPE_U16 },
	[CTRL_ATTR_FAMILY_NAME] = { "family-name", MNL_TYPE_NUL_STRING },
	[CTRL_ATTR_VERSION] = { "version", MNL_TYPE_U32 },
	[CTRL_ATTR_OPS] = { "ops", MNL_TYPE_NESTED },
	[CTRL_ATTR_MCAST_GROUPS] = { "mcast-groups", MNL_TYPE_NESTED },
};

static const struct attr_policy ctrl_op_policy[CTRL_ATTR_OP_MAX + 1] = {
	[CTRL_ATTR_OP_ID] = { "op-id", MNL_TYPE_U32 },
	[CTRL_ATTR_OP_FLAGS] = { "op-flags", MNL_TYPE_U32 },
};

static const struct attr_policy ctrl_grp_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME] = { "name", MNL_TYPE_NUL_STRING },
	[CTRL_ATTR_MCAST_GRP_ID] = { "id", MNL_TYPE_U32 },
};

static const struct attr_policy array_policy[1] = { { "entry", MNL_TYPE_NESTED } };

static const struct attr_set status_set = ATTR_SET("status", status_policy);
static const struct attr_set stats_set = ATTR_SET("stats", stats_policy);
static const struct attr_set class_set = ATTR_SET("class", class_policy);
static const struct attr_set mark_set = ATTR_SET("mark", mark_policy);
static const struct attr_set exit_set = ATTR_SET("exit", exit_policy);
static const struct attr_set ctrl_set = ATTR_SET("ctrl", ctrl_policy);
static const struct attr_set ctrl_op_set = ATTR_SET("ctrl op", ctrl_op_policy);
static const struct attr_set ctrl_grp_set = ATTR_SET("ctrl group", ctrl_grp_policy);
static const struct attr_set array_set = { "array", array_policy, 0, true };

static int bad(struct asictl_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct asictl_err *e, const char *fmt, ...)
{
	va_list ap;

	memset(e, 0, sizeof(*e));
	e->err = -EBADMSG;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* 0, or why libmnl refused @a: EINVAL for a string without its NUL, else ERANGE. */
static int attr_validate(const struct nlattr *a, enum mnl_attr_data_type type)
{
	if (type == MNL_TYPE_ASI_UINT)
		return !mnl_attr_validate(a, MNL_TYPE_U32) ||
		       !mnl_attr_validate(a, MNL_TYPE_U64) ? 0 : ERANGE;
	if (!mnl_attr_validate(a, type))
		return 0;
	return errno == EINVAL ? EINVAL : ERANGE;
}

typedef int (*attr_fn)(const struct nlattr *a, unsigned int type, void *arg,
		       struct asictl_err *e);

/* One parse of a message's or a nest's attributes by libmnl. */
struct attr_parse {
	const struct attr_set *set;
	attr_fn fn;
	void *arg;
	struct asictl_err *e;
	const char *start;	/* of the attributes */
	size_t used;		/* bytes up to the end of the last one seen */
	int err;
};

/*
 * One attribute, from mnl_attr_parse*(): a known one must pass its
 * policy, then @fn gets it, in order (multi-attr entries included).
 * Attributes this version does not know are skipped.
 */
static int attr_cb(const struct nlattr *a, void *data)
{
	struct attr_parse *p = data;
	const struct attr_set *set = p->set;
	unsigned int type = set->array ? 0 : mnl_attr_get_type(a);
	const struct attr_policy *pol;

	p->used = (const char *)a + MNL_ALIGN(a->nla_len) - p->start;
	if (type > set->max || !set->policy[type].name)
		return MNL_CB_OK;
	pol = &set->policy[type];
	switch (attr_validate(a, pol->type)) {
	case 0:
		break;
	case EINVAL:
		p->err = bad(p->e, "malformed reply: attribute %s.%s is not NUL-terminated",
			     set->name, pol->name);
		return MNL_CB_ERROR;
	default:
		p->err = bad(p->e, "malformed reply: attribute %s.%s has a bad size (%u bytes)",
			     set->name, pol->name, mnl_attr_get_payload_len(a));
		return MNL_CB_ERROR;
	}
	p->err = p->fn(a, type, p->arg, p->e);
	return p->err ? MNL_CB_ERROR : MNL_CB_OK;
}

/*
 * libmnl stops quietly at an attribute that does not fit in what is left;
 * a reply that does not end with its last attribute is malformed.
 */
static int attr_parse_end(struct attr_parse *p, int ret, size_t len)
{
	if (ret < 0)
		return p->err ? p->err : bad(p->e, "malformed reply in %s",
					     p->set->name);
	if (p->used < len)
		return bad(p->e, "malformed reply: truncated attribute in %s",
			   p->set->name);
	return 0;
}

static int parse_nested(const struct nlattr *nest, const struct attr_set *set,
			attr_fn fn, void *arg, struct asictl_err *e)
{
	struct attr_parse p = { set, fn, arg, e, mnl_attr_get_payload(nest), 0, 0 };

	return attr_parse_end(&p, mnl_attr_parse_nested(nest, attr_cb, &p),
			      mnl_attr_get_payload_len(nest));
}

/* The attributes after the genetlink header. */
static int parse_attrs(const struct nlmsghdr *nlh, const struct attr_set *set,
		       attr_fn fn, void *arg, struct asictl_err *e)
{
	struct attr_parse p = { set, fn, arg, e, NULL, 0, 0 };
	size_t len;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return bad(e, "malformed reply: message too short (%u bytes)",
			   nlh->nlmsg_len);
	/*
	 * Not mnl_attr_parse(): it runs to nlmsg_len rounded up, so it would
	 * take an attribute reaching into the padding past the message.
	 */
	p.start = mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN);
	len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return attr_parse_end(&p, mnl_attr_parse_payload(p.start, len, attr_cb, &p),
			      len);
}

static uint64_t get_uint(const struct nlattr *a)
{
	return mnl_attr_get_payload_len(a) == 8 ? mnl_attr_get_u64(a) :
						  mnl_attr_get_u32(a);
}

static int set_str(char **dst, const struct nlattr *a, struct asictl_err *e)
{
	char *s = strdup(mnl_attr_get_str(a));

	if (!s) {
		asictl_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	free(*dst);
	*dst = s;
	return 0;
}

/* ---- status ---- */

static int status_attr(const struct nlattr *a, unsigned int type, void *arg,
		       struct asictl_err *e)
{
	struct asictl_status *st = arg;

	(void)e;
	st->has |= 1u << type;
	switch (type) {
	case ASI_A_STATUS_ENABLED:
		st->enabled = mnl_attr_get_u8(a);
		break;
	case ASI_A_STATUS_PCID:
		st->pcid = mnl_attr_get_u8(a);
		break;
	case ASI_A_STATUS_CLASSES:
		st->classes = mnl_attr_get_u32(a);
		break;
	case ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES:
		st->global_nonsensitive_bytes = get_uint(a);
		break;
	case ASI_A_STATUS_STUN_DEFAULT:
		st->stun_default = mnl_attr_get_u32(a);
		break;
	case ASI_A_STATUS_MARKS:
		st->marks = mnl_attr_get_u32(a);
		break;
	}
	return 0;
}

int asictl_parse_status(const struct nlmsghdr *nlh, struct asictl_status *st,
			struct asictl_err *e)
{
	memset(st, 0, sizeof(*st));
	return parse_attrs(nlh, &status_set, status_attr, st, e);
}

/* ---- class and stats ---- */

static int stats_attr(const struct nlattr *a, unsigned int type, void *arg,
		      struct asictl_err *e)
{
	struct asictl_stats *s = arg;

	(void)e;
	s->has |= 1u << type;
	s->v[type] = type == ASI_A_STATS_CPU ? mnl_attr_get_u32(a) : get_uint(a);
	return 0;
}

static int class_attr(const struct nlattr *a, unsigned int type, void *arg,
		      struct asictl_err *e)
{
	struct asictl_class *c = arg;
	struct asictl_stats *cpus;

	c->has |= 1u << type;
	switch (type) {
	case ASI_A_CLASS_ID:
		c->id = mnl_attr_get_u32(a);
		break;
	case ASI_A_CLASS_NAME:
		return set_str(&c->name, a, e);
	case ASI_A_CLASS_FLAGS:
		c->flags = mnl_attr_get_u32(a);
		break;
	case ASI_A_CLASS_INSTANCES:
		c->instances = mnl_attr_get_u32(a);
		break;
	case ASI_A_CLASS_STUN:
		c->stun = mnl_attr_get_u32(a);
		break;
	case ASI_A_CLASS_STATS:
		memset(&c->stats, 0, sizeof(c->stats));
		return parse_nested(a, &stats_set, stats_attr, &c->stats, e);
	case ASI_A_CLASS_CPU_STATS:
		cpus = realloc(c->cpus, (c->ncpus + 1) * sizeof(*cpus));
		if (!cpus) {
			asictl_err_set(e, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		c->cpus = cpus;
		memset(&cpus[c->ncpus], 0, sizeof(*cpus));
		return parse_nested(a, &stats_set, stats_attr, &cpus[c->ncpus++], e);
	}
	return 0;
}

int asictl_parse_class(const struct nlmsghdr *nlh, struct asictl_class *c,
		       struct asictl_err *e)
{
	int err;

	memset(c, 0, sizeof(*c));
	err = parse_attrs(nlh, &class_set, class_attr, c, e);
	if (err)
		asictl_class_free(c);
	return err;
}

void asictl_class_free(struct asictl_class *c)
{
	free(c->name);
	free(c->cpus);
	c->name = NULL;
	c->cpus = NULL;
	c->ncpus = 0;
}

/* ---- mark ---- */

static int mark_attr(const struct nlattr *a, unsigned int type, void *arg,
		     struct asictl_err *e)
{
	struct asictl_mark *m = arg;

	m->has |= 1u << type;
	switch (type) {
	case ASI_A_MARK_ID:
		m->id = mnl_attr_get_u32(a);
		break;
	case ASI_A_MARK_KIND:
		m->kind = mnl_attr_get_u32(a);
		break;
	case ASI_A_MARK_ADDR:
		m->addr = get_uint(a);
		break;
	case ASI_A_MARK_LEN:
		m->len = get_uint(a);
		break;
	case ASI_A_MARK_NAME:
		return set_str(&m->name, a, e);
	case ASI_A_MARK_PAGES:
		m->pages = get_uint(a);
		break;
	}
	return 0;
}

int asictl_parse_mark(const struct nlmsghdr *nlh, struct asictl_mark *m,
		      struct asictl_err *e)
{
	int err;

	memset(m, 0, sizeof(*m));
	err = parse_attrs(nlh, &mark_set, mark_attr, m, e);
	if (err)
		asictl_mark_free(m);
	return err;
}

void asictl_mark_free(struct asictl_mark *m)
{
	free(m->name);
	m->name = NULL;
}

/* ---- exit ---- */

static int exit_attr(const struct nlattr *a, unsigned int type, void *arg,
		     struct asictl_err *e)
{
	struct asictl_exit_ent *x = arg;

	x->has |= 1u << type;
	switch (type) {
	case ASI_A_EXIT_ADDR:
		x->addr = get_uint(a);
		break;
	case ASI_A_EXIT_IP:
		x->ip = get_uint(a);
		break;
	case ASI_A_EXIT_SYMBOL:
		return set_str(&x->symbol, a, e);
	case ASI_A_EXIT_COUNT:
		x->count = get_uint(a);
		break;
	case ASI_A_EXIT_CLASS_ID:
		x->class_id = mnl_attr_get_u32(a);
		break;
	case ASI_A_EXIT_CLASS_NAME:
		return set_str(&x->class_name, a, e);
	}
	return 0;
}

int asictl_parse_exit(const struct nlmsghdr *nlh, struct asictl_exit_ent *x,
		      struct asictl_err *e)
{
	int err;

	memset(x, 0, sizeof(*x));
	err = parse_attrs(nlh, &exit_set, exit_attr, x, e);
	if (err)
		asictl_exit_free(x);
	return err;
}

void asictl_exit_free(struct asictl_exit_ent *x)
{
	free(x->symbol);
	free(x->class_name);
	x->symbol = x->class_name = NULL;
}

/* ---- the genetlink controller's family reply ---- */

struct grp {
	const char *name;
	uint32_t id;
	bool has_id;
};

static int grp_attr(const struct nlattr *a, unsigned int type, void *arg,
		    struct asictl_err *e)
{
	struct grp *g = arg;

	(void)e;
	if (type == CTRL_ATTR_MCAST_GRP_NAME)
		g->name = mnl_attr_get_str(a);
	else if (type == CTRL_ATTR_MCAST_GRP_ID) {
		g->id = mnl_attr_get_u32(a);
		g->has_id = true;
	}
	return 0;
}

static int grps_attr(const struct nlattr *a, unsigned int type, void *arg,
		     struct asictl_err *e)
{
	struct asictl_family *f = arg;
	struct grp g = { 0 };
	int err;

	(void)type;
	if (mnl_attr_get_payload_len(a) < sizeof(struct nlattr))
		return bad(e, "malformed reply: empty multicast group");
	err = parse_nested(a, &ctrl_grp_set, grp_attr, &g, e);
	if (err)
		return err;
	if (g.name && g.has_id && !strcmp(g.name, ASI_MCGRP_MONITOR))
		f->monitor_group = g.id;
	return 0;
}

static int op_attr(const struct nlattr *a, unsigned int type, void *arg,
		   struct asictl_err *e)
{
	uint32_t *id = arg;

	(void)e;
	if (type == CTRL_ATTR_OP_ID)
		*id = mnl_attr_get_u32(a);
	return 0;
}

static int ops_attr(const struct nlattr *a, unsigned int type, void *arg,
		    struct asictl_err *e)
{
	struct asictl_family *f = arg;
	uint32_t id = 0;
	int err;

	(void)type;
	err = parse_nested(a, &ctrl_op_set, op_attr, &id, e);
	if (err)
		return err;
	if (id <= ASI_CMD_MAX)
		f->ops[id / 32] |= 1u << (id % 32);
	return 0;
}

static int ctrl_attr(const struct nlattr *a, unsigned int type, void *arg,
		     struct asictl_err *e)
{
	struct asictl_family *f = arg;

	switch (type) {
	case CTRL_ATTR_FAMILY_ID:
		f->id = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_VERSION:
		f->version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_OPS:
		f->ops_known = true;
		return parse_nested(a, &array_set, ops_attr, f, e);
	case CTRL_ATTR_MCAST_GROUPS:
		return parse_nested(a, &array_set, grps_attr, f, e);
	}
	return 0;
}

int asictl_parse_family(const struct nlmsghdr *nlh, struct asictl_family *f,
			struct asictl_err *e)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = parse_attrs(nlh, &ctrl_set, ctrl_attr, f, e);
	if (err)
		return err;
	if (!f->id)
		return bad(e, "malformed reply: the controller gave no family id");
	return 0;
}

bool asictl_family_has_op(const struct asictl_family *f, unsigned int cmd)
{
	if (!f->ops_known)
		return true;
	return cmd <= ASI_CMD_MAX && (f->ops[cmd / 32] >> (cmd % 32) & 1);
}

/* ---- acks, errors, dumps ---- */

/* The attribute at @offs of our request, named after its set. */
static void name_bad_attr(const struct nlmsghdr *req, uint32_t offs,
			  struct asictl_err *e)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);
	const struct nlattr *a = (const void *)((const char *)req + offs);
	const struct attr_set *set;
	unsigned int type;

	if (offs < NLMSG_HDRLEN + GENL_HDRLEN ||
	    (uint64_t)offs + sizeof(*a) > req->nlmsg_len || req->nlmsg_type == GENL_ID_CTRL)
		return;
	switch (g->cmd) {
	case ASI_CMD_STATUS_GET:
		set = &status_set;
		break;
	case ASI_CMD_MARK_ADD:
	case ASI_CMD_MARK_DEL:
	case ASI_CMD_MARK_GET:
		set = &mark_set;
		break;
	case ASI_CMD_EXITS_GET:
		set = &exit_set;
		break;
	default:
		set = &class_set;
		break;
	}
	type = mnl_attr_get_type(a);
	if (type <= set->max && set->policy[type].name)
		snprintf(e->attr, sizeof(e->attr), "%s", set->policy[type].name);
	else
		snprintf(e->attr, sizeof(e->attr), "%u", type);
}

struct extack {
	const struct nlmsghdr *req;
	struct asictl_err *e;
	bool warning;		/* the request was done: the message is a remark */
};

static int extack_attr(const struct nlattr *a, void *data)
{
	struct extack *x = data;
	struct asictl_err *e = x->e;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			break;
		if (x->warning)
			snprintf(e->warning, sizeof(e->warning), "%s", mnl_attr_get_str(a));
		else
			snprintf(e->msg, sizeof(e->msg), "%s", mnl_attr_get_str(a));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (!x->warning && !mnl_attr_validate(a, MNL_TYPE_U32))
			name_bad_attr(x->req, mnl_attr_get_u32(a), e);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (!x->warning && !mnl_attr_validate(a, MNL_TYPE_U32) && !e->msg[0])
			snprintf(e->msg, sizeof(e->msg),
				 "a required attribute (%u) is missing",
				 mnl_attr_get_u32(a));
		break;
	}
	return MNL_CB_OK;
}

/*
 * Where the extack TLVs of an NLMSG_ERROR or NLMSG_DONE start in its
 * payload: after the error code and, in an error that is not capped, the
 * copy of the request. 0 when there are none.
 */
static size_t extack_offset(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	if (nlh->nlmsg_type == NLMSG_DONE)
		off = MNL_ALIGN(sizeof(int));
	else if (nlh->nlmsg_flags & NLM_F_CAPPED)
		off = sizeof(*err);
	else if (err->msg.nlmsg_len >= NLMSG_HDRLEN)
		off = sizeof(*err) + NLMSG_ALIGN(err->msg.nlmsg_len - NLMSG_HDRLEN);
	else
		return 0;
	return NLMSG_HDRLEN + off < nlh->nlmsg_len ? off : 0;
}

/*
 * The end of an exchange, @err from an NLMSG_ERROR or NLMSG_DONE. The
 * extack goes with the error; on success its message is a warning for
 * the caller to print. A TLV that does not fit stops libmnl's parser and
 * a bad one is skipped: what the kernel got right still shows.
 */
static int exchange_end(const struct nlmsghdr *req, const struct nlmsghdr *nlh,
			int err, struct asictl_err *e)
{
	struct extack x = { req, e, !err };
	size_t off = extack_offset(nlh);

	memset(e, 0, sizeof(*e));
	e->err = err;
	e->kernel = err != 0;
	if (off)
		mnl_attr_parse_payload(mnl_nlmsg_get_payload_offset(nlh, off),
				       nlh->nlmsg_len - NLMSG_HDRLEN - off,
				       extack_attr, &x);
	return err;
}

/* NLMSG_ERROR: 0 for an ack, else the kernel's error. */
static int error_msg(const struct nlmsghdr *req, const struct nlmsghdr *nlh,
		     struct asictl_err *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*err))
		return bad(e, "malformed reply: truncated error message");
	if (err->error > 0 || err->error < -4095)
		return bad(e, "malformed reply: error %d", err->error);
	return exchange_end(req, nlh, err->error, e);
}

/* NLMSG_DONE: 0, or the error that ended the dump (never positive). */
static int done_msg(const struct nlmsghdr *req, const struct nlmsghdr *nlh,
		    struct asictl_err *e)
{
	int err;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(err))
		return 0;	/* old kernels: no errno */
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err < -4095)
		return bad(e, "malformed reply: dump error %d", err);
	return exchange_end(req, nlh, err < 0 ? err : 0, e);
}

struct process {
	const struct nlmsghdr *req;
	uint32_t portid;
	asictl_msg_cb cb;
	void *data;
	struct asictl_err *e;
	const char *start;
	size_t len;		/* bytes received */
	size_t used;		/* bytes up to the end of the last message */
	int err;		/* what ended the exchange, 0 when done */
};

/*
 * Every message goes through here first. libmnl's mnl_nlmsg_ok() compares
 * nlmsg_len as an int, so a length above INT_MAX passes it: check that
 * the message fits before anyone reads it or libmnl steps over it.
 * MNL_CB_ERROR for one that does not fit, MNL_CB_OK for one that is not
 * ours (a notification or a stale reply, skipped), 2 for ours.
 */
#define PROCESS_OURS	2

static int ours(struct process *p, const struct nlmsghdr *nlh)
{
	size_t off = (const char *)nlh - p->start;

	if (nlh->nlmsg_len > p->len - off) {
		p->err = bad(p->e, "malformed reply: truncated message (%zu bytes left)",
			     p->len - off);
		return MNL_CB_ERROR;
	}
	p->used = off + NLMSG_ALIGN(nlh->nlmsg_len);
	if (nlh->nlmsg_seq != p->req->nlmsg_seq ||
	    (p->portid && nlh->nlmsg_pid && nlh->nlmsg_pid != p->portid))
		return MNL_CB_OK;
	return PROCESS_OURS;
}

static int process_data(const struct nlmsghdr *nlh, void *data)
{
	struct process *p = data;
	int r = ours(p, nlh);

	if (r != PROCESS_OURS)
		return r;
	if (nlh->nlmsg_type != p->req->nlmsg_type) {
		p->err = bad(p->e, "malformed reply: unexpected message type %u",
			     nlh->nlmsg_type);
		return MNL_CB_ERROR;
	}
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		p->err = bad(p->e, "malformed reply: message too short (%u bytes)",
			     nlh->nlmsg_len);
		return MNL_CB_ERROR;
	}
	p->err = p->cb ? p->cb(nlh, p->data, p->e) : 0;
	if (p->err)
		return MNL_CB_ERROR;
	/* A do without NLM_F_ACK ends with its reply. */
	if (!(p->req->nlmsg_flags & (NLM_F_ACK | NLM_F_DUMP)))
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

static int process_noop(const struct nlmsghdr *nlh, void *data)
{
	int r = ours(data, nlh);

	return r == PROCESS_OURS ? MNL_CB_OK : r;
}

/* A reserved control type: a data message of ours with a wrong type. */
static int process_reserved(const struct nlmsghdr *nlh, void *data)
{
	return process_data(nlh, data);
}

/* NLMSG_ERROR and NLMSG_DONE of ours end the exchange, with @end's verdict. */
static int process_end(const struct nlmsghdr *nlh, struct process *p,
		       int (*end)(const struct nlmsghdr *req,
				  const struct nlmsghdr *nlh,
				  struct asictl_err *e))
{
	int r = ours(p, nlh);

	if (r != PROCESS_OURS)
		return r;
	p->err = end(p->req, nlh, p->e);
	return p->err ? MNL_CB_ERROR : MNL_CB_STOP;
}

static int process_error(const struct nlmsghdr *nlh, void *data)
{
	return process_end(nlh, data, error_msg);
}

static int process_done(const struct nlmsghdr *nlh, void *data)
{
	return process_end(nlh, data, done_msg);
}

static int process_overrun(const struct nlmsghdr *nlh, void *data)
{
	struct process *p = data;
	int r = ours(p, nlh);

	if (r != PROCESS_OURS)
		return r;
	p->err = bad(p->e, "netlink overrun");
	return MNL_CB_ERROR;
}

/*
 * The messages of one receive, through libmnl's dispatcher: 0 when the
 * exchange is over, 1 when more is to come, or a negative errno. Sequence
 * and port are checked here, not by libmnl: notifications and stale
 * replies are skipped rather than treated as errors.
 */
int asictl_process(const struct nlmsghdr *req, uint32_t portid,
		   const void *buf, size_t len, asictl_msg_cb cb, void *data,
		   struct asictl_err *e)
{
	/* Every control type has a callback: each checks its message fits. */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[0] = process_reserved,
		[NLMSG_NOOP] = process_noop,
		[NLMSG_ERROR] = process_error,
		[NLMSG_DONE] = process_done,
		[NLMSG_OVERRUN] = process_overrun,
		[NLMSG_OVERRUN + 1 ... NLMSG_MIN_TYPE - 1] = process_reserved,
	};
	struct process p = { req, portid, cb, data, e, buf, len, 0, 0 };
	int ret;

	if (!len)
		return bad(e, "malformed reply: empty message");
	errno = 0;
	ret = mnl_cb_run2(buf, len, 0, 0, process_data, &p, ctl, NLMSG_MIN_TYPE);
	if (ret < 0 && p.err)
		return p.err;
	if (ret < 0 && errno == EINTR) {
		/* NLM_F_DUMP_INTR: the kernel's state changed during the dump. */
		asictl_err_set(e, -EINTR, "the dump was interrupted by a change, run it again");
		return -EINTR;
	}
	if (ret < 0)
		return bad(e, "malformed reply");
	if (ret == MNL_CB_STOP)
		return 0;
	/* libmnl stops quietly at a message that does not fit. */
	if (p.used < len)
		return bad(e, "malformed reply: truncated message (%zu bytes left)",
			   len - p.used);
	return 1;
}
