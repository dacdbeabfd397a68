// SPDX-License-Identifier: GPL-2.0
/*
 * One output layer for text and JSON, in the way of iproute2's
 * print_*(PRINT_ANY, ...): each field is printed by one call that carries
 * both its JSON key and its text format, so the two cannot drift. JSON
 * numbers are exact 64-bit integers; addresses are "0x..." strings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

void out_init(struct asictl_out *o, FILE *fp, bool json, bool pretty)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
	o->json = json || pretty;
	o->pretty = pretty;
	o->first[0] = true;
}

void out_json_string(FILE *fp, const char *s)
{
	const unsigned char *p;

	fputc('"', fp);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			/* Control bytes, and bytes that may not be UTF-8. */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(fp, "\\u%04x", *p);
			else
				fputc(*p, fp);
		}
	}
	fputc('"', fp);
}

/* Separator, indentation and key before a JSON value. */
static void sep(struct asictl_out *o, const char *key)
{
	int i;

	if (!o->first[o->depth])
		fputc(',', o->fp);
	o->first[o->depth] = false;
	if (o->pretty && o->depth > 0) {
		fputc('\n', o->fp);
		for (i = 0; i < o->depth; i++)
			fputs("  ", o->fp);
	}
	if (key) {
		out_json_string(o->fp, key);
		fputs(o->pretty ? ": " : ":", o->fp);
	}
}

static void open_(struct asictl_out *o, const char *key, char c)
{
	if (!o->json)
		return;
	sep(o, key);
	fputc(c, o->fp);
	if (o->depth < ASICTL_OUT_DEPTH - 1)
		o->depth++;
	o->first[o->depth] = true;
}

static void close_(struct asictl_out *o, char c)
{
	int i;
	bool empty;

	if (!o->json)
		return;
	empty = o->first[o->depth];
	if (o->depth > 0)
		o->depth--;
	if (o->pretty && !empty) {
		fputc('\n', o->fp);
		for (i = 0; i < o->depth; i++)
			fputs("  ", o->fp);
	}
	fputc(c, o->fp);
	if (!o->depth) {
		fputc('\n', o->fp);
		o->first[0] = true;
	}
}

void out_obj_open(struct asictl_out *o, const char *key)
{
	open_(o, key, '{');
}

void out_obj_close(struct asictl_out *o)
{
	close_(o, '}');
}

void out_arr_open(struct asictl_out *o, const char *key)
{
	open_(o, key, '[');
}

void out_arr_close(struct asictl_out *o)
{
	close_(o, ']');
}

void out_u64(struct asictl_out *o, const char *key, const char *fmt,
	     uint64_t v)
{
	if (o->json) {
		sep(o, key);
		fprintf(o->fp, "%" PRIu64, v);
	} else if (fmt) {
		fprintf(o->fp, fmt, v);
	}
}

void out_hex(struct asictl_out *o, const char *key, const char *fmt,
	     uint64_t v)
{
	if (o->json) {
		sep(o, key);
		fprintf(o->fp, "\"0x%" PRIx64 "\"", v);
	} else if (fmt) {
		fprintf(o->fp, fmt, v);
	}
}

void out_str(struct asictl_out *o, const char *key, const char *fmt,
	     const char *s)
{
	if (o->json) {
		sep(o, key);
		if (s)
			out_json_string(o->fp, s);
		else
			fputs("null", o->fp);
	} else if (fmt) {
		fprintf(o->fp, fmt, s ? s : "-");
	}
}

void out_bool(struct asictl_out *o, const char *key, const char *fmt, bool b)
{
	if (o->json) {
		sep(o, key);
		fputs(b ? "true" : "false", o->fp);
	} else if (fmt) {
		fprintf(o->fp, fmt, b ? "yes" : "no");
	}
}

void out_text(struct asictl_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
}

/* ---- names ---- */

const char *asictl_stun_name(uint32_t stun)
{
	switch (stun) {
	case ASI_STUN_POLICY_OFF:
		return "off";
	case ASI_STUN_POLICY_ON:
		return "on";
	}
	return NULL;
}

const char *asictl_kind_name(uint32_t kind)
{
	switch (kind) {
	case ASI_MARK_KIND_RANGE:
		return "range";
	case ASI_MARK_KIND_SYMBOL:
		return "symbol";
	case ASI_MARK_KIND_CACHE:
		return "cache";
	}
	return NULL;
}

const char *const asictl_stats_names[ASI_A_STATS_MAX + 1] = {
	[ASI_A_STATS_ENTERS] = "enters",
	[ASI_A_STATS_EXITS_EXPLICIT] = "exits-explicit",
	[ASI_A_STATS_EXITS_PAGE_FAULT] = "exits-page-fault",
	[ASI_A_STATS_EXITS_SCHEDULE] = "exits-schedule",
	[ASI_A_STATS_EXITS_RETURN_TO_USER] = "exits-return-to-user",
	[ASI_A_STATS_EXITS_MM_SWITCH] = "exits-mm-switch",
	[ASI_A_STATS_TLB_FLUSHES] = "tlb-flushes",
	[ASI_A_STATS_FAULTS_HANDLED] = "faults-handled",
	[ASI_A_STATS_L1D_FLUSHES] = "l1d-flushes",
	[ASI_A_STATS_CPU_BUFFER_CLEARS] = "cpu-buffer-clears",
	[ASI_A_STATS_IBPBS] = "ibpbs",
	[ASI_A_STATS_STUNS] = "stuns",
	[ASI_A_STATS_STUNNED_NS] = "stunned-ns",
	[ASI_A_STATS_STUN_TIMEOUTS] = "stun-timeouts",
	[ASI_A_STATS_CPU] = "cpu",
};

/* An enum value by name, or its number when this asictl does not know it. */
static void out_enum(struct asictl_out *o, const char *key, const char *fmt,
		     const char *name, uint32_t v)
{
	char num[16];

	if (name) {
		out_str(o, key, fmt, name);
	} else if (o->json) {
		out_u64(o, key, NULL, v);
	} else {
		snprintf(num, sizeof(num), "%" PRIu32, v);
		out_str(o, key, fmt, num);
	}
}

/* ---- status ---- */

static void human_bytes(struct asictl_out *o, uint64_t v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = v;
	int i = -1;

	while (d >= 1024 && i < 5) {
		d /= 1024;
		i++;
	}
	if (i >= 0)
		out_text(o, " (%.1f %s)", d, unit[i]);
}

void asictl_render_status(struct asictl_out *o, const struct asictl_status *st)
{
	out_obj_open(o, NULL);
	if (ASICTL_HAS(st, ASI_A_STATUS_ENABLED))
		out_bool(o, "enabled", st->enabled ? "ASI                   enabled\n" :
			 "ASI                   disabled\n", st->enabled);
	if (ASICTL_HAS(st, ASI_A_STATUS_PCID))
		out_bool(o, "pcid", "PCID                  %s\n", st->pcid);
	if (ASICTL_HAS(st, ASI_A_STATUS_CLASSES))
		out_u64(o, "classes", "classes               %" PRIu64 "\n",
			st->classes);
	if (ASICTL_HAS(st, ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES)) {
		out_u64(o, "global-nonsensitive-bytes",
			"global non-sensitive  %" PRIu64 " bytes",
			st->global_nonsensitive_bytes);
		human_bytes(o, st->global_nonsensitive_bytes);
		out_text(o, "\n");
	}
	if (ASICTL_HAS(st, ASI_A_STATUS_STUN_DEFAULT))
		out_enum(o, "stun-default", "default stun policy   %s\n",
			 asictl_stun_name(st->stun_default), st->stun_default);
	if (ASICTL_HAS(st, ASI_A_STATUS_MARKS))
		out_u64(o, "marks", "marks                 %" PRIu64 "\n",
			st->marks);
	out_obj_close(o);
}

/* ---- classes ---- */

static void out_flags(struct asictl_out *o, uint32_t flags)
{
	char text[64] = "";
	uint32_t rest = flags & ~(uint32_t)ASI_CLASS_FLAGS_MAP_STANDARD;
	char hex[16];

	out_arr_open(o, "flags");
	if (flags & ASI_CLASS_FLAGS_MAP_STANDARD) {
		out_str(o, NULL, NULL, "map-standard");
		strcat(text, "map-standard");
	}
	if (rest) {
		snprintf(hex, sizeof(hex), "0x%" PRIx32, rest);
		out_str(o, NULL, NULL, hex);
		if (text[0])
			strcat(text, ",");
		strcat(text, hex);
	}
	out_arr_close(o);
	out_text(o, "%-14s", text[0] ? text : "-");
}

void asictl_render_class_head(struct asictl_out *o)
{
	out_text(o, "%4s  %-15s  %-14s  %9s  %s\n", "ID", "NAME", "FLAGS",
		 "INSTANCES", "STUN");
}

void asictl_render_class(struct asictl_out *o, const struct asictl_class *c)
{
	out_obj_open(o, NULL);
	out_u64(o, "id", "%4" PRIu64 "  ", c->id);
	out_str(o, "name", "%-15s  ", c->name);
	if (ASICTL_HAS(c, ASI_A_CLASS_FLAGS))
		out_flags(o, c->flags);
	else
		out_text(o, "%-14s", "-");
	out_text(o, "  ");
	if (ASICTL_HAS(c, ASI_A_CLASS_INSTANCES))
		out_u64(o, "instances", "%9" PRIu64 "  ", c->instances);
	else
		out_text(o, "%9s  ", "-");
	if (ASICTL_HAS(c, ASI_A_CLASS_STUN))
		out_enum(o, "stun", "%s", asictl_stun_name(c->stun), c->stun);
	else
		out_text(o, "-");
	out_text(o, "\n");
	out_obj_close(o);
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

#define CPUS_PER_ROW 8

/* Counters as rows, the total and up to 8 CPUs as columns. */
static void per_cpu_text(struct asictl_out *o, const struct asictl_class *c)
{
	size_t first, i, n;
	int t, w[CPUS_PER_ROW + 1];
	char head[24];

	for (first = 0; first < c->ncpus; first += CPUS_PER_ROW) {
		n = c->ncpus - first < CPUS_PER_ROW ? c->ncpus - first : CPUS_PER_ROW;
		w[0] = 5;
		for (t = ASI_A_STATS_ENTERS; t < ASI_A_STATS_CPU; t++)
			if (digits(c->stats.v[t]) > w[0])
				w[0] = digits(c->stats.v[t]);
		for (i = 0; i < n; i++) {
			const struct asictl_stats *s = &c->cpus[first + i];

			snprintf(head, sizeof(head), "cpu%" PRIu64, s->v[ASI_A_STATS_CPU]);
			w[i + 1] = strlen(head);
			for (t = ASI_A_STATS_ENTERS; t < ASI_A_STATS_CPU; t++)
				if (digits(s->v[t]) > w[i + 1])
					w[i + 1] = digits(s->v[t]);
		}
		fprintf(o->fp, "  %-22s %*s", "", w[0], "total");
		for (i = 0; i < n; i++) {
			snprintf(head, sizeof(head), "cpu%" PRIu64,
				 c->cpus[first + i].v[ASI_A_STATS_CPU]);
			fprintf(o->fp, " %*s", w[i + 1], head);
		}
		fputc('\n', o->fp);
		for (t = ASI_A_STATS_ENTERS; t < ASI_A_STATS_CPU; t++) {
			fprintf(o->fp, "  %-22s %*" PRIu64, asictl_stats_names[t],
				w[0], c->stats.v[t]);
			for (i = 0; i < n; i++)
				fprintf(o->fp, " %*" PRIu64, w[i + 1],
					c->cpus[first + i].v[t]);
			fputc('\n', o->fp);
		}
	}
}

static void out_counters(struct asictl_out *o, const struct asictl_stats *s,
			 bool text)
{
	int t;

	for (t = ASI_A_STATS_ENTERS; t < ASI_A_STATS_CPU; t++) {
		if (!ASICTL_HAS(s, t))
			continue;
		if (text)
			out_text(o, "  %-22s ", asictl_stats_names[t]);
		out_u64(o, asictl_stats_names[t], text ? "%20" PRIu64 "\n" : NULL,
			s->v[t]);
	}
}

void asictl_render_stats(struct asictl_out *o, const struct asictl_class *c,
			 bool per_cpu)
{
	size_t i;

	out_obj_open(o, NULL);
	out_text(o, "class %s (id ", c->name ? c->name : "?");
	out_u64(o, "id", "%" PRIu64 ")\n", c->id);
	out_str(o, "name", NULL, c->name);
	out_obj_open(o, "stats");
	out_counters(o, &c->stats, !per_cpu || !c->ncpus);
	out_obj_close(o);
	if (per_cpu) {
		if (!o->json && c->ncpus)
			per_cpu_text(o, c);
		out_arr_open(o, "cpu-stats");
		for (i = 0; i < c->ncpus && o->json; i++) {
			out_obj_open(o, NULL);
			out_u64(o, "cpu", NULL, c->cpus[i].v[ASI_A_STATS_CPU]);
			out_counters(o, &c->cpus[i], false);
			out_obj_close(o);
		}
		out_arr_close(o);
	}
	out_obj_close(o);
}

/*
 * One line of "stun show": @name NULL is the default policy, under the key
 * status-get gives it (stun-default).
 */
void asictl_render_stun(struct asictl_out *o, const char *name, uint32_t id,
			uint32_t stun)
{
	if (!name) {
		out_text(o, "%-16s  ", "default");
		out_enum(o, "stun-default", "%s\n", asictl_stun_name(stun), stun);
		return;
	}
	out_obj_open(o, NULL);
	out_u64(o, "id", NULL, id);
	out_str(o, "name", "%-16s  ", name);
	out_enum(o, "stun", "%s\n", asictl_stun_name(stun), stun);
	out_obj_close(o);
}

/* An address column; 0 (hidden by kptr_restrict) shows as "-". */
static void out_addr(struct asictl_out *o, const char *key, uint64_t v)
{
	if (o->json || v)
		out_hex(o, key, "%#018" PRIx64 "  ", v);
	else
		out_text(o, "%-18s  ", "-");
}

/* ---- marks ---- */

void asictl_render_mark_head(struct asictl_out *o)
{
	out_text(o, "%6s  %-6s  %-18s  %12s  %8s  %s\n", "ID", "KIND", "ADDR",
		 "LEN", "PAGES", "NAME");
}

void asictl_render_mark(struct asictl_out *o, const struct asictl_mark *m)
{
	out_obj_open(o, NULL);
	out_u64(o, "id", "%6" PRIu64 "  ", m->id);
	if (ASICTL_HAS(m, ASI_A_MARK_KIND))
		out_enum(o, "kind", "%-6s  ", asictl_kind_name(m->kind), m->kind);
	else
		out_text(o, "%-6s  ", "-");
	if (ASICTL_HAS(m, ASI_A_MARK_ADDR))
		out_addr(o, "addr", m->addr);
	else
		out_text(o, "%-18s  ", "-");
	if (ASICTL_HAS(m, ASI_A_MARK_LEN))
		out_u64(o, "len", "%12" PRIu64 "  ", m->len);
	else
		out_text(o, "%12s  ", "-");
	if (ASICTL_HAS(m, ASI_A_MARK_PAGES))
		out_u64(o, "pages", "%8" PRIu64 "  ", m->pages);
	else
		out_text(o, "%8s  ", "-");
	if (ASICTL_HAS(m, ASI_A_MARK_NAME))
		out_str(o, "name", "%s", m->name);
	else
		out_text(o, "-");
	out_text(o, "\n");
	out_obj_close(o);
}

/* ---- exits ---- */

void asictl_render_exit_head(struct asictl_out *o)
{
	out_text(o, "%12s  %-15s  %-18s  %-18s  %s\n", "COUNT", "CLASS", "ADDR",
		 "IP", "SYMBOL");
}

void asictl_render_exit(struct asictl_out *o, const struct asictl_exit_ent *x)
{
	char cls[32];

	out_obj_open(o, NULL);
	out_u64(o, "count", "%12" PRIu64 "  ", x->count);
	out_u64(o, "class-id", NULL, x->class_id);
	if (x->class_name)
		snprintf(cls, sizeof(cls), "%s", x->class_name);
	else
		snprintf(cls, sizeof(cls), "%" PRIu32, x->class_id);
	if (o->json)
		out_str(o, "class-name", NULL, x->class_name);
	else
		out_text(o, "%-15s  ", cls);
	out_addr(o, "addr", x->addr);
	out_addr(o, "ip", x->ip);
	out_str(o, "symbol", "%s\n", x->symbol);
	out_obj_close(o);
}

/* ---- monitor events ---- */

int asictl_render_event(struct asictl_out *o, const struct nlmsghdr *nlh,
			struct asictl_err *e)
{
	const struct genlmsghdr *g;
	struct asictl_class c;
	struct asictl_mark m;
	const char *ev;
	int err;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		asictl_err_set(e, -EBADMSG, "malformed notification (%u bytes)",
			       nlh->nlmsg_len);
		return -EBADMSG;
	}
	g = mnl_nlmsg_get_payload(nlh);
	switch (g->cmd) {
	case ASI_CMD_CLASS_ADD_NTF:
	case ASI_CMD_CLASS_DEL_NTF:
		ev = g->cmd == ASI_CMD_CLASS_ADD_NTF ? "class-add" : "class-del";
		err = asictl_parse_class(nlh, &c, e);
		if (err)
			return err;
		out_obj_open(o, NULL);
		out_str(o, "event", "%-10s", ev);
		out_u64(o, "id", " id %" PRIu64, c.id);
		out_str(o, "name", " name %s", c.name);
		out_text(o, " flags ");
		out_flags(o, c.flags);
		out_text(o, "\n");
		out_obj_close(o);
		asictl_class_free(&c);
		break;
	case ASI_CMD_STUN_NTF:
		err = asictl_parse_class(nlh, &c, e);
		if (err)
			return err;
		out_obj_open(o, NULL);
		out_str(o, "event", "%-10s", "stun");
		if (ASICTL_HAS(&c, ASI_A_CLASS_ID))
			out_u64(o, "id", " class %" PRIu64, c.id);
		else
			out_text(o, " default");
		out_enum(o, "stun", " %s\n", asictl_stun_name(c.stun), c.stun);
		out_obj_close(o);
		asictl_class_free(&c);
		break;
	case ASI_CMD_MARK_ADD_NTF:
	case ASI_CMD_MARK_DEL_NTF:
		ev = g->cmd == ASI_CMD_MARK_ADD_NTF ? "mark-add" : "mark-del";
		err = asictl_parse_mark(nlh, &m, e);
		if (err)
			return err;
		out_obj_open(o, NULL);
		out_str(o, "event", "%-10s", ev);
		out_u64(o, "id", " id %" PRIu64, m.id);
		if (ASICTL_HAS(&m, ASI_A_MARK_KIND))
			out_enum(o, "kind", " kind %s", asictl_kind_name(m.kind),
				 m.kind);
		if (ASICTL_HAS(&m, ASI_A_MARK_NAME))
			out_str(o, "name", " name %s", m.name);
		if (ASICTL_HAS(&m, ASI_A_MARK_ADDR))
			out_hex(o, "addr", " addr %#" PRIx64, m.addr);
		if (ASICTL_HAS(&m, ASI_A_MARK_LEN))
			out_u64(o, "len", " len %" PRIu64, m.len);
		if (ASICTL_HAS(&m, ASI_A_MARK_PAGES))
			out_u64(o, "pages", " pages %" PRIu64, m.pages);
		out_text(o, "\n");
		out_obj_close(o);
		asictl_mark_free(&m);
		break;
	default:
		out_obj_open(o, NULL);
		out_str(o, "event", "%s", "unknown");
		out_u64(o, "cmd", " cmd %" PRIu64 "\n", g->cmd);
		out_obj_close(o);
	}
	fflush(o->fp);
	return 0;
}
