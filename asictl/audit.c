// SPDX-License-Identifier: GPL-2.0
/*
 * The exposure audit: what one restricted space maps, by owner, as the
 * kernel lists it in /sys/kernel/debug/asi/audit. Parsing and rendering
 * only; cmds.c reads the file.
 *
 * The kernel's lines:
 *   START-END BYTES KIND OWNER...     one range of one owner
 *   total KIND BYTES REASON...        per kind
 *   total all BYTES
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "asictl.h"

void asictl_audit_free(struct asictl_audit *au)
{
	size_t i;

	for (i = 0; i < au->nranges; i++)
		free(au->ranges[i].owner);
	for (i = 0; i < au->ntotals; i++)
		free(au->totals[i].reason);
	free(au->ranges);
	free(au->totals);
	memset(au, 0, sizeof(*au));
}

/* Copy the next space-separated word of *s into @w; NULL when none fits. */
static const char *word(const char **s, char *w, size_t len)
{
	const char *p = *s + strspn(*s, " "), *end = p + strcspn(p, " ");

	if (end == p || (size_t)(end - p) >= len)
		return NULL;
	memcpy(w, p, end - p);
	w[end - p] = '\0';
	*s = end + strspn(end, " ");
	return w;
}

static int get_u64(const char *w, int base, uint64_t *v)
{
	char *end;

	if (!w || !*w || *w == '-')
		return -1;
	errno = 0;
	*v = strtoull(w, &end, base);
	return errno || *end ? -1 : 0;
}

/* Room for one more element: the capacity doubles at each power of two. */
static int grow(void **v, size_t n, size_t size)
{
	void *p;

	if (n & (n - 1))
		return 0;
	p = realloc(*v, (n ? 2 * n : 1) * size);
	if (!p)
		return -1;
	*v = p;
	return 0;
}

static int parse_total(struct asictl_audit *au, const char *s)
{
	struct asictl_audit_total t = { 0 };
	char w[32];

	if (!word(&s, t.kind, sizeof(t.kind)) ||
	    get_u64(word(&s, w, sizeof(w)), 10, &t.bytes))
		return -1;
	if (!strcmp(t.kind, "all")) {
		au->all = t.bytes;
		au->has_all = true;
		return *s ? -1 : 0;
	}
	t.reason = strdup(s);
	if (!t.reason || grow((void **)&au->totals, au->ntotals, sizeof(t))) {
		free(t.reason);
		return -ENOMEM;
	}
	au->totals[au->ntotals++] = t;
	return 0;
}

static int parse_range(struct asictl_audit *au, const char *s)
{
	struct asictl_audit_range r = { 0 };
	char w[48], *dash;

	if (!word(&s, w, sizeof(w)) || !(dash = strchr(w, '-')))
		return -1;
	*dash = '\0';
	if (get_u64(w, 16, &r.start) || get_u64(dash + 1, 16, &r.end) ||
	    r.end <= r.start ||
	    get_u64(word(&s, w, sizeof(w)), 10, &r.bytes) ||
	    r.bytes != r.end - r.start ||
	    !word(&s, r.kind, sizeof(r.kind)) || !*s)
		return -1;
	r.owner = strdup(s);
	if (!r.owner || grow((void **)&au->ranges, au->nranges, sizeof(r))) {
		free(r.owner);
		return -ENOMEM;
	}
	au->ranges[au->nranges++] = r;
	return 0;
}

/*
 * Parse the kernel's audit text into @au. Return: 0, or -EINVAL (a line
 * not in the format, or no "total all" line: the text was cut short) or
 * -ENOMEM, with @e saying which line.
 */
int asictl_parse_audit(const char *text, struct asictl_audit *au,
		       struct asictl_err *e)
{
	const char *line = text;
	unsigned int n = 0;

	memset(au, 0, sizeof(*au));
	while (*line) {
		size_t len = strcspn(line, "\n");
		char *copy = strndup(line, len);
		int err;

		n++;
		if (!copy) {
			err = -ENOMEM;
		} else if (au->has_all) {
			err = -1;	/* nothing after the last total */
		} else if (!strncmp(copy, "total ", 6)) {
			err = parse_total(au, copy + 6);
		} else {
			err = parse_range(au, copy);
		}
		free(copy);
		if (err) {
			asictl_err_set(e, err == -ENOMEM ? -ENOMEM : -EINVAL,
				       err == -ENOMEM ? "out of memory" :
				       "unexpected audit line %u", n);
			asictl_audit_free(au);
			return e->err;
		}
		line += len + (line[len] == '\n');
	}
	if (!au->has_all) {
		asictl_err_set(e, -EINVAL, "the audit ends without its total");
		asictl_audit_free(au);
		return -EINVAL;
	}
	return 0;
}

/* Bytes of one kind in @au; 0 if it has none. */
uint64_t asictl_audit_bytes(const struct asictl_audit *au, const char *kind)
{
	size_t i;

	for (i = 0; i < au->ntotals; i++)
		if (!strcmp(au->totals[i].kind, kind))
			return au->totals[i].bytes;
	return 0;
}

void asictl_render_audit(struct asictl_out *o, const char *space,
			 const struct asictl_audit *au, bool summary)
{
	size_t i;

	out_obj_open(o, NULL);
	out_str(o, "space", "space %s\n", space);
	if (!summary) {
		out_text(o, "%-18s  %-18s  %12s  %-7s  %s\n", "START", "END",
			 "BYTES", "KIND", "OWNER");
		out_arr_open(o, "ranges");
		for (i = 0; i < au->nranges; i++) {
			const struct asictl_audit_range *r = &au->ranges[i];

			out_obj_open(o, NULL);
			out_hex(o, "start", "%#018" PRIx64 "  ", r->start);
			out_hex(o, "end", "%#018" PRIx64 "  ", r->end);
			out_u64(o, "bytes", "%12" PRIu64 "  ", r->bytes);
			out_str(o, "kind", "%-7s  ", r->kind);
			out_str(o, "owner", "%s\n", r->owner);
			out_obj_close(o);
		}
		out_arr_close(o);
		out_text(o, "\n");
	}
	out_text(o, "%-7s  %12s  %s\n", "KIND", "BYTES", "WHY IT IS MAPPED");
	out_arr_open(o, "totals");
	for (i = 0; i < au->ntotals; i++) {
		const struct asictl_audit_total *t = &au->totals[i];

		out_obj_open(o, NULL);
		out_str(o, "kind", "%-7s  ", t->kind);
		out_u64(o, "bytes", "%12" PRIu64 "  ", t->bytes);
		out_str(o, "reason", "%s\n", t->reason);
		out_obj_close(o);
	}
	out_arr_close(o);
	out_text(o, "%-7s  ", "all");
	out_u64(o, "bytes", "%12" PRIu64 "\n", au->all);
	out_obj_close(o);
}
