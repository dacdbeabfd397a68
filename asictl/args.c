// SPDX-License-Identifier: GPL-2.0
/*
 * Command line parsing: object -> command -> arguments, into struct
 * asictl_args. No I/O besides the message on @err, so the unit tests and
 * the fuzz target drive it directly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "asictl.h"

#define MAX_ARGS 64

void asictl_usage(FILE *fp)
{
	fputs("Usage: asictl [OPTIONS] OBJECT [COMMAND] [ARGUMENTS]\n"
	      "\n"
	      "  asictl status\n"
	      "  asictl class show [CLASS]\n"
	      "  asictl stats [CLASS] [--per-cpu] [--reset]\n"
	      "  asictl stun show [--class CLASS]\n"
	      "  asictl stun on|off [--class CLASS]\n"
	      "  asictl mark add ADDR LEN | SYMBOL | --cache NAME\n"
	      "  asictl mark del ID\n"
	      "  asictl mark list\n"
	      "  asictl exits [--top N] [--class CLASS]\n"
	      "  asictl monitor\n"
	      "  asictl audit [global | CLASS PID [N]] [--summary]\n"
	      "  asictl help\n"
	      "  asictl OBJECT help\n"
	      "\n"
	      "CLASS is a class name (e.g. kvm) or a class id.\n"
	      "Numbers are decimal, or hexadecimal with 0x.\n"
	      "\n"
	      "Options:\n"
	      "  -j, --json     JSON output\n"
	      "  -p, --pretty   indented JSON output (implies --json)\n"
	      "  -V, --version  print the version and exit\n"
	      "  -h, --help     print this help and exit\n"
	      "\n"
	      "Exit codes: 0 ok, 1 usage error, 2 the kernel refused the request,\n"
	      "3 ASI is disabled, 4 permission denied, 5 netlink or system error.\n"
	      "See asictl(8).\n", fp);
}

/* The usage lines of one object ("asictl mark help"), as iproute2 does. */
void asictl_usage_topic(FILE *fp, const char *topic)
{
	static const char *const lines[] = {
		"asictl status",
		"asictl class show [CLASS]",
		"asictl stats [CLASS] [--per-cpu] [--reset]",
		"asictl stun show [--class CLASS]",
		"asictl stun on|off [--class CLASS]",
		"asictl mark add ADDR LEN | SYMBOL | --cache NAME",
		"asictl mark del ID",
		"asictl mark list",
		"asictl exits [--top N] [--class CLASS]",
		"asictl monitor",
		"asictl audit [global | CLASS PID [N]] [--summary]",
	};
	size_t l = strlen(topic);
	bool first = true;
	unsigned int i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *cmd = lines[i] + strlen("asictl ");

		if (strncmp(cmd, topic, l) || (cmd[l] && cmd[l] != ' '))
			continue;
		fprintf(fp, "%s%s\n", first ? "Usage: " : "       ", lines[i]);
		first = false;
	}
	fputs("See asictl(8).\n", fp);
}

static int usage_err(FILE *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_err(FILE *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		fputs("asictl: ", err);
		va_start(ap, fmt);
		vfprintf(err, fmt, ap);
		va_end(ap);
		fputs("\nTry 'asictl help'.\n", err);
	}
	return ASICTL_EXIT_USAGE;
}

static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	/* strtoull accepts leading blanks and a sign; we do not. */
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

int asictl_parse_u64(const char *s, uint64_t *v)
{
	return parse_num(s, UINT64_MAX, v);
}

int asictl_parse_u32(const char *s, uint32_t *v)
{
	uint64_t n;
	int err = parse_num(s, UINT32_MAX, &n);

	if (!err)
		*v = n;
	return err;
}

static int num_err(FILE *err, const char *ctx, const char *what,
		   const char *s, int rc, uint64_t max)
{
	if (rc == -ERANGE)
		return usage_err(err, "%s: %s '%s' is out of range (max %llu)",
				 ctx, what, s, (unsigned long long)max);
	return usage_err(err, "%s: %s '%s' is not a number", ctx, what, s);
}

static int get_u32(FILE *err, const char *ctx, const char *what,
		   const char *s, uint32_t *v)
{
	int rc = asictl_parse_u32(s, v);

	return rc ? num_err(err, ctx, what, s, rc, UINT32_MAX) : 0;
}

static int get_u64(FILE *err, const char *ctx, const char *what,
		   const char *s, uint64_t *v)
{
	int rc = asictl_parse_u64(s, v);

	return rc ? num_err(err, ctx, what, s, rc, UINT64_MAX) : 0;
}

static void class_ref(struct asictl_class_ref *ref, const char *s)
{
	ref->name = s;
	ref->by_id = asictl_parse_u32(s, &ref->id) == 0;
}

/* The arguments left after OBJECT [COMMAND]. */
struct cursor {
	char **v;
	int n, i;
	const char *ctx;	/* "stats", "mark add", ... for messages */
	FILE *err;
};

static const char *next(struct cursor *c)
{
	return c->i < c->n ? c->v[c->i++] : NULL;
}

/* "--opt VALUE" or "--opt=VALUE": the value, or NULL if @s is not --opt. */
static int opt_value(struct cursor *c, const char *s, const char *opt,
		     const char **val)
{
	size_t l = strlen(opt);

	if (strncmp(s, opt, l))
		return 0;
	if (s[l] == '=') {
		*val = s + l + 1;
		return 1;
	}
	if (s[l])
		return 0;
	*val = next(c);
	if (!*val) {
		usage_err(c->err, "%s: %s needs an argument", c->ctx, opt);
		return -1;
	}
	return 1;
}

static int unexpected(struct cursor *c, const char *s)
{
	if (s[0] == '-')
		return usage_err(c->err, "%s: unknown option '%s'", c->ctx, s);
	return usage_err(c->err, "%s: unexpected argument '%s'", c->ctx, s);
}

/* [--class CLASS] [--top N] as the command allows; anything else fails. */
static int class_top_opts(struct cursor *c, struct asictl_args *a, bool top)
{
	const char *s, *val;
	int r;

	while ((s = next(c))) {
		r = opt_value(c, s, "--class", &val);
		if (r < 0)
			return ASICTL_EXIT_USAGE;
		if (r) {
			if (!*val)
				return usage_err(c->err, "%s: empty class", c->ctx);
			class_ref(&a->class, val);
			continue;
		}
		r = top ? opt_value(c, s, "--top", &val) : 0;
		if (r < 0)
			return ASICTL_EXIT_USAGE;
		if (r) {
			if (get_u32(c->err, c->ctx, "--top", val, &a->top))
				return ASICTL_EXIT_USAGE;
			if (!a->top)
				return usage_err(c->err, "%s: --top must be at least 1",
						 c->ctx);
			continue;
		}
		return unexpected(c, s);
	}
	return 0;
}

static int parse_class(struct cursor *c, struct asictl_args *a)
{
	const char *cmd = next(c), *s;

	c->ctx = "class show";
	if (cmd && strcmp(cmd, "show") && strcmp(cmd, "list"))
		return usage_err(c->err, "class: unknown command '%s' (show)", cmd);
	a->op = ASICTL_OP_CLASS_SHOW;
	s = next(c);
	if (s) {
		if (s[0] == '-' || !*s)
			return unexpected(c, s);
		class_ref(&a->class, s);
	}
	s = next(c);
	return s ? unexpected(c, s) : 0;
}

static int parse_stats(struct cursor *c, struct asictl_args *a)
{
	bool reset = false;
	const char *s;

	c->ctx = "stats";
	a->op = ASICTL_OP_STATS;
	while ((s = next(c))) {
		if (!strcmp(s, "--per-cpu")) {
			a->per_cpu = true;
		} else if (!strcmp(s, "--reset")) {
			reset = true;
		} else if (s[0] != '-' && *s && !a->class.name) {
			class_ref(&a->class, s);
		} else {
			return unexpected(c, s);
		}
	}
	if (reset) {
		if (a->per_cpu)
			return usage_err(c->err,
					 "stats: --reset and --per-cpu do not go together");
		a->op = ASICTL_OP_STATS_RESET;
	}
	return 0;
}

/*
 * audit [global | CLASS PID [N]] [--summary]: the space as the kernel's
 * audit file takes it, the Nth (default 0) space of CLASS in process PID.
 */
static int parse_audit(struct cursor *c, struct asictl_args *a)
{
	const char *s, *words[3];
	uint32_t pid, nth = 0;
	int n = 0;

	c->ctx = "audit";
	a->op = ASICTL_OP_AUDIT;
	while ((s = next(c))) {
		if (!strcmp(s, "--summary"))
			a->summary = true;
		else if (s[0] == '-' || !*s || n == 3)
			return unexpected(c, s);
		else
			words[n++] = s;
	}
	if (!n || (n == 1 && !strcmp(words[0], "global"))) {
		strcpy(a->space, "global");
		return 0;
	}
	if (n == 1)
		return usage_err(c->err, "audit: missing PID after class '%s'",
				 words[0]);
	if (strcspn(words[0], " \t\n") != strlen(words[0]) ||
	    strlen(words[0]) >= 32)
		return usage_err(c->err, "audit: bad class name '%s'", words[0]);
	/* The kernel parses both as int. */
	if (get_u32(c->err, c->ctx, "PID", words[1], &pid))
		return ASICTL_EXIT_USAGE;
	if (!pid || pid > INT32_MAX)
		return usage_err(c->err, "audit: PID must be 1 to %d", INT32_MAX);
	if (n == 3 && get_u32(c->err, c->ctx, "N", words[2], &nth))
		return ASICTL_EXIT_USAGE;
	if (nth > INT32_MAX)
		return usage_err(c->err, "audit: N must be at most %d", INT32_MAX);
	snprintf(a->space, sizeof(a->space), "%s %u %u", words[0], pid, nth);
	return 0;
}

static int parse_stun(struct cursor *c, struct asictl_args *a)
{
	const char *cmd = next(c);

	if (!cmd || !strcmp(cmd, "show")) {
		a->op = ASICTL_OP_STUN_SHOW;
		c->ctx = "stun show";
	} else if (!strcmp(cmd, "on") || !strcmp(cmd, "off")) {
		a->op = ASICTL_OP_STUN_SET;
		a->stun = strcmp(cmd, "on") ? ASI_STUN_POLICY_OFF :
					      ASI_STUN_POLICY_ON;
		c->ctx = cmd[1] == 'n' ? "stun on" : "stun off";
	} else if (cmd[0] == '-') {
		/* "stun --class kvm": show */
		c->i--;
		a->op = ASICTL_OP_STUN_SHOW;
		c->ctx = "stun show";
	} else {
		return usage_err(c->err, "stun: unknown command '%s' (show, on, off)",
				 cmd);
	}
	return class_top_opts(c, a, false);
}

static int parse_mark(struct cursor *c, struct asictl_args *a)
{
	const char *cmd = next(c), *s, *t;

	if (!cmd || !strcmp(cmd, "list") || !strcmp(cmd, "show")) {
		c->ctx = "mark list";
		a->op = ASICTL_OP_MARK_LIST;
		s = next(c);
		return s ? unexpected(c, s) : 0;
	}
	if (!strcmp(cmd, "del")) {
		c->ctx = "mark del";
		a->op = ASICTL_OP_MARK_DEL;
		s = next(c);
		if (!s)
			return usage_err(c->err, "mark del: missing ID");
		if (get_u32(c->err, c->ctx, "ID", s, &a->mark_id))
			return ASICTL_EXIT_USAGE;
		s = next(c);
		return s ? unexpected(c, s) : 0;
	}
	if (strcmp(cmd, "add"))
		return usage_err(c->err, "mark: unknown command '%s' (add, del, list)",
				 cmd);

	c->ctx = "mark add";
	a->op = ASICTL_OP_MARK_ADD;
	s = next(c);
	if (!s)
		return usage_err(c->err,
				 "mark add: missing ADDR LEN, SYMBOL or --cache NAME");
	if (!strcmp(s, "--cache") || !strncmp(s, "--cache=", 8)) {
		if (opt_value(c, s, "--cache", &t) < 0)
			return ASICTL_EXIT_USAGE;
		if (!*t)
			return usage_err(c->err, "mark add: empty cache name");
		a->mark_kind = ASI_MARK_KIND_CACHE;
		a->name = t;
	} else if (s[0] == '-' || !*s) {
		return unexpected(c, s);
	} else if (isdigit((unsigned char)s[0])) {
		a->mark_kind = ASI_MARK_KIND_RANGE;
		if (get_u64(c->err, c->ctx, "ADDR", s, &a->addr))
			return ASICTL_EXIT_USAGE;
		t = next(c);
		if (!t)
			return usage_err(c->err, "mark add: missing LEN after ADDR");
		if (get_u64(c->err, c->ctx, "LEN", t, &a->len))
			return ASICTL_EXIT_USAGE;
		if (!a->len)
			return usage_err(c->err, "mark add: LEN must not be 0");
	} else {
		a->mark_kind = ASI_MARK_KIND_SYMBOL;
		a->name = s;
	}
	s = next(c);
	return s ? unexpected(c, s) : 0;
}

static int no_more(struct cursor *c, struct asictl_args *a, enum asictl_op op)
{
	const char *s = next(c);

	a->op = op;
	return s ? unexpected(c, s) : 0;
}

/* Global options: -j -p -V -h, also combined ("-jp"), anywhere. */
static int global_opt(const char *s, struct asictl_args *a, bool *help,
		      bool *version, FILE *err)
{
	const char *p;

	if (!strcmp(s, "--json")) {
		a->json = true;
	} else if (!strcmp(s, "--pretty")) {
		a->json = a->pretty = true;
	} else if (!strcmp(s, "--version")) {
		*version = true;
	} else if (!strcmp(s, "--help")) {
		*help = true;
	} else if (s[0] == '-' && s[1] && s[1] != '-' && !isdigit((unsigned char)s[1])) {
		for (p = s + 1; *p; p++) {
			switch (*p) {
			case 'j': a->json = true; break;
			case 'p': a->json = a->pretty = true; break;
			case 'V': *version = true; break;
			case 'h': *help = true; break;
			default:
				return usage_err(err, "unknown option '-%c'", *p);
			}
		}
	} else {
		return -1;	/* not a global option */
	}
	return 0;
}

static bool takes_value(const char *s)
{
	return !strcmp(s, "--class") || !strcmp(s, "--top") ||
	       !strcmp(s, "--cache");
}

static bool is_object(const char *s)
{
	static const char *const objects[] = {
		"status", "class", "stats", "stun", "mark", "exits", "monitor",
		"audit",
	};
	unsigned int i;

	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (!strcmp(s, objects[i]))
			return true;
	return false;
}

int asictl_parse_args(int argc, char **argv, struct asictl_args *a, FILE *err)
{
	bool help = false, version = false, dashdash = false;
	char *pos[MAX_ARGS];
	struct cursor c = { .v = pos, .err = err };
	const char *obj;
	int i, r;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		char *s = argv[i];

		if (!s)
			break;
		if (!dashdash && !strcmp(s, "--")) {
			dashdash = true;
			continue;
		}
		if (!dashdash) {
			r = global_opt(s, a, &help, &version, err);
			if (r > 0)
				return r;
			if (r == 0)
				continue;
		}
		if (c.n == MAX_ARGS)
			return usage_err(err, "too many arguments");
		pos[c.n++] = s;
		/* The value of --class/--top/--cache is never an option. */
		if (!dashdash && takes_value(s) && i + 1 < argc && argv[i + 1]) {
			if (c.n == MAX_ARGS)
				return usage_err(err, "too many arguments");
			pos[c.n++] = argv[++i];
		}
	}
	if (help) {
		a->op = ASICTL_OP_HELP;
		return 0;
	}
	if (version) {
		a->op = ASICTL_OP_VERSION;
		return 0;
	}

	obj = next(&c);
	if (!obj)
		return usage_err(err, "missing object (status, class, stats, stun, mark, exits, monitor, audit, help)");
	c.ctx = obj;
	/* OBJECT help: that object's usage. */
	if (c.i < c.n && !strcmp(c.v[c.i], "help") && is_object(obj)) {
		c.i++;
		a->topic = obj;
		return no_more(&c, a, ASICTL_OP_HELP);
	}
	if (!strcmp(obj, "help"))
		return no_more(&c, a, ASICTL_OP_HELP);
	if (!strcmp(obj, "version"))
		return no_more(&c, a, ASICTL_OP_VERSION);
	if (!strcmp(obj, "status"))
		return no_more(&c, a, ASICTL_OP_STATUS);
	if (!strcmp(obj, "class"))
		return parse_class(&c, a);
	if (!strcmp(obj, "stats"))
		return parse_stats(&c, a);
	if (!strcmp(obj, "stun"))
		return parse_stun(&c, a);
	if (!strcmp(obj, "mark"))
		return parse_mark(&c, a);
	if (!strcmp(obj, "exits")) {
		a->op = ASICTL_OP_EXITS;
		return class_top_opts(&c, a, true);
	}
	if (!strcmp(obj, "monitor"))
		return no_more(&c, a, ASICTL_OP_MONITOR);
	if (!strcmp(obj, "audit"))
		return parse_audit(&c, a);
	if (obj[0] == '-')
		return usage_err(err, "unknown option '%s'", obj);
	return usage_err(err, "unknown object '%s' (status, class, stats, stun, mark, exits, monitor, audit, help)",
			 obj);
}
