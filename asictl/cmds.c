// SPDX-License-Identifier: GPL-2.0
/*
 * The commands: each builds its requests (msg.c), exchanges them
 * (session.c) and renders the replies (print.c). Errors go to @err with
 * the operation they belong to; the return value is the exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asictl.h"

struct run {
	const struct asictl_args *a;
	struct asictl_nl nl;
	struct asictl_out o;
	FILE *err;
	char what[96];		/* the operation, for error messages */
	char buf[ASICTL_REQ_SIZE];
	unsigned int n;		/* replies rendered */
	/* a class looked up by name or id */
	uint32_t class_id;
	char class_name[64];
	FILE *mem;		/* the output until the command succeeded */
	char *text;
	size_t size;
};

static int fail(struct run *r)
{
	asictl_err_print(r->err, r->what, &r->nl.err);
	return asictl_err_exit(&r->nl.err);
}

static void what(struct run *r, unsigned int cmd)
{
	const struct asictl_class_ref *c = &r->a->class;

	snprintf(r->what, sizeof(r->what), "%s%s%s", asictl_cmd_name(cmd),
		 c->name ? " of class " : "", c->name ? c->name : "");
}

/* A request that did not fit: only arguments can make it too long. */
static int too_long(struct run *r)
{
	fprintf(r->err, "asictl: %s: an argument is too long\n", r->what);
	return ASICTL_EXIT_USAGE;
}

static int transact(struct run *r, struct nlmsghdr *req, asictl_msg_cb cb,
		    void *data)
{
	if (!req)
		return too_long(r);
	if (asictl_nl_transact(&r->nl, req, cb, data))
		return fail(r);
	/* Done, with a remark from the kernel: shown as iproute2 does. */
	if (r->nl.err.warning[0])
		fprintf(r->err, "Warning: %s\n", r->nl.err.warning);
	return 0;
}

/* ---- status ---- */

static int status_cb(const struct nlmsghdr *nlh, void *data,
		     struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_status st;
	int err = asictl_parse_status(nlh, &st, e);

	if (!err)
		asictl_render_status(&r->o, &st);
	return err;
}

static int cmd_status(struct run *r)
{
	what(r, ASI_CMD_STATUS_GET);
	return transact(r, asictl_msg_status_get(r->buf, r->nl.fam.id),
			status_cb, r);
}

/* ---- classes and their counters ---- */

static int class_cb(const struct nlmsghdr *nlh, void *data,
		    struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_class c;
	int err = asictl_parse_class(nlh, &c, e);

	if (err)
		return err;
	if (r->a->op == ASICTL_OP_CLASS_SHOW) {
		asictl_render_class(&r->o, &c);
	} else {
		if (r->n)
			out_text(&r->o, "\n");
		asictl_render_stats(&r->o, &c, r->a->per_cpu);
	}
	r->n++;
	asictl_class_free(&c);
	return 0;
}

static int cmd_class_show(struct run *r)
{
	int rc;

	what(r, ASI_CMD_CLASS_GET);
	out_arr_open(&r->o, NULL);
	if (r->a->op == ASICTL_OP_CLASS_SHOW)
		asictl_render_class_head(&r->o);
	rc = transact(r, asictl_msg_class_get(r->buf, r->nl.fam.id,
					      &r->a->class, r->a->per_cpu),
		      class_cb, r);
	if (rc)
		return rc;
	out_arr_close(&r->o);
	return 0;
}

static int lookup_cb(const struct nlmsghdr *nlh, void *data,
		     struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_class c;
	int err = asictl_parse_class(nlh, &c, e);

	if (err)
		return err;
	r->class_id = c.id;
	snprintf(r->class_name, sizeof(r->class_name), "%s",
		 c.name ? c.name : "?");
	asictl_class_free(&c);
	return 0;
}

/* The id (and name) of the class given on the command line. */
static int lookup_class(struct run *r)
{
	const struct asictl_class_ref *ref = &r->a->class;

	r->class_id = 0;
	if (!ref->name)
		return 0;
	what(r, ASI_CMD_CLASS_GET);
	return transact(r, asictl_msg_class_get(r->buf, r->nl.fam.id, ref,
						false),
			lookup_cb, r);
}

static int cmd_stats_reset(struct run *r)
{
	int rc = r->a->class.by_id ? 0 : lookup_class(r);

	if (rc)
		return rc;
	if (r->a->class.by_id)
		r->class_id = r->a->class.id;
	what(r, ASI_CMD_STATS_RESET);
	return transact(r, asictl_msg_stats_reset(r->buf, r->nl.fam.id,
						  r->class_id), NULL, NULL);
}

/* ---- stun ---- */

static int stun_cb(const struct nlmsghdr *nlh, void *data,
		   struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_class c;
	int err = asictl_parse_class(nlh, &c, e);

	if (err)
		return err;
	if (r->n++ == 0)
		asictl_render_stun(&r->o, NULL, 0, c.stun);
	else
		asictl_render_stun(&r->o, r->class_name, c.id, c.stun);
	asictl_class_free(&c);
	return 0;
}

static int stun_dump_cb(const struct nlmsghdr *nlh, void *data,
			struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_class c;
	int err = asictl_parse_class(nlh, &c, e);

	if (err)
		return err;
	asictl_render_stun(&r->o, c.name ? c.name : "?", c.id, c.stun);
	asictl_class_free(&c);
	return 0;
}

static int cmd_stun_show(struct run *r)
{
	uint16_t fam = r->nl.fam.id;
	int rc = lookup_class(r);

	if (rc)
		return rc;
	out_obj_open(&r->o, NULL);
	what(r, ASI_CMD_STUN_GET);
	rc = transact(r, asictl_msg_stun_get(r->buf, fam, 0), stun_cb, r);
	if (rc)
		return rc;
	out_arr_open(&r->o, "classes");
	if (r->class_id)
		rc = transact(r, asictl_msg_stun_get(r->buf, fam, r->class_id),
			      stun_cb, r);
	else
		rc = transact(r, asictl_msg_class_get(r->buf, fam, NULL, false),
			      stun_dump_cb, r);
	if (rc)
		return rc;
	out_arr_close(&r->o);
	out_obj_close(&r->o);
	return 0;
}

static int cmd_stun_set(struct run *r)
{
	int rc = r->a->class.by_id ? 0 : lookup_class(r);

	if (rc)
		return rc;
	if (r->a->class.by_id)
		r->class_id = r->a->class.id;
	what(r, ASI_CMD_STUN_SET);
	return transact(r, asictl_msg_stun_set(r->buf, r->nl.fam.id,
					       r->class_id, r->a->stun),
			NULL, NULL);
}

/* ---- marks ---- */

static int mark_cb(const struct nlmsghdr *nlh, void *data,
		   struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_mark m;
	int err = asictl_parse_mark(nlh, &m, e);

	if (err)
		return err;
	if (r->n++ == 0)
		asictl_render_mark_head(&r->o);
	asictl_render_mark(&r->o, &m);
	asictl_mark_free(&m);
	return 0;
}

static int cmd_mark_add(struct run *r)
{
	what(r, ASI_CMD_MARK_ADD);
	return transact(r, asictl_msg_mark_add(r->buf, r->nl.fam.id, r->a),
			mark_cb, r);
}

static int cmd_mark_del(struct run *r)
{
	what(r, ASI_CMD_MARK_DEL);
	return transact(r, asictl_msg_mark_del(r->buf, r->nl.fam.id,
					       r->a->mark_id), NULL, NULL);
}

static int cmd_mark_list(struct run *r)
{
	int rc;

	what(r, ASI_CMD_MARK_GET);
	out_arr_open(&r->o, NULL);
	rc = transact(r, asictl_msg_mark_get(r->buf, r->nl.fam.id, 0), mark_cb,
		      r);
	if (rc)
		return rc;
	out_arr_close(&r->o);
	return 0;
}

/* ---- exits ---- */

static int exit_cb(const struct nlmsghdr *nlh, void *data,
		   struct asictl_err *e)
{
	struct run *r = data;
	struct asictl_exit_ent x;
	int err = asictl_parse_exit(nlh, &x, e);

	if (err)
		return err;
	if (r->n++ == 0)
		asictl_render_exit_head(&r->o);
	asictl_render_exit(&r->o, &x);
	asictl_exit_free(&x);
	return 0;
}

static int cmd_exits(struct run *r)
{
	int rc = r->a->class.by_id ? 0 : lookup_class(r);

	if (rc)
		return rc;
	if (r->a->class.by_id)
		r->class_id = r->a->class.id;
	what(r, ASI_CMD_EXITS_GET);
	out_arr_open(&r->o, NULL);
	rc = transact(r, asictl_msg_exits_get(r->buf, r->nl.fam.id, r->a->top,
					      r->class_id), exit_cb, r);
	if (rc)
		return rc;
	out_arr_close(&r->o);
	return 0;
}

/* ---- monitor ---- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int event_cb(const struct nlmsghdr *nlh, void *data,
		    struct asictl_err *e)
{
	struct run *r = data;

	return asictl_render_event(&r->o, nlh, e);
}

static int cmd_monitor(struct run *r)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: recv returns EINTR and the loop sees @stop. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(r->what, sizeof(r->what), "monitor");
	if (asictl_nl_monitor(&r->nl, event_cb, r, &stop))
		return fail(r);
	return 0;
}

/* ---- audit: debugfs, not netlink (a walk of page tables, for root) ---- */

static int audit_fail(struct run *r, int err, bool kernel, const char *fmt,
		      const char *arg)
{
	struct asictl_err *e = &r->nl.err;

	asictl_err_set(e, -err, fmt, arg);
	e->kernel = kernel;
	asictl_err_print(r->err, r->what, e);
	if (err == ENOENT && !kernel)
		return ASICTL_EXIT_DISABLED;
	return asictl_err_exit(e);
}

/* The kernel's answers about the space itself; others are system errors. */
static bool audit_refused(int err)
{
	return err == ESRCH || err == ENOENT || err == EINVAL;
}

/* Why the kernel refused a space: asi_parse_space() and the walk. */
static const char *audit_refusal(int err)
{
	switch (err) {
	case ESRCH:
		return "no such process";
	case ENOENT:
		return "no such class, or the process has no space of it";
	case EINVAL:
		return "not a space: global, or CLASS PID N";
	default:
		return "";
	}
}

static int cmd_audit(struct run *r)
{
	const char *space = r->a->space;
	size_t len = 0, size = 0;
	struct asictl_audit au;
	char *text = NULL;
	int fd, rc;

	snprintf(r->what, sizeof(r->what), "audit of %s", space);
	fd = open(ASICTL_AUDIT_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return audit_fail(r, errno, false, errno == ENOENT ?
				  "%s (needs debugfs mounted and ASI on)" :
				  "%s", ASICTL_AUDIT_PATH);
	if (write(fd, space, strlen(space)) < 0) {
		rc = errno;
		close(fd);
		return audit_fail(r, rc, audit_refused(rc), "%s",
				  audit_refusal(rc));
	}
	for (;;) {
		ssize_t n;

		if (size - len < 4096) {
			char *p = realloc(text, size ? 2 * size : 65536);

			if (!p) {
				rc = audit_fail(r, ENOMEM, false, "%s", "");
				goto out;
			}
			text = p;
			size = size ? 2 * size : 65536;
		}
		n = read(fd, text + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno;
			rc = audit_fail(r, rc, audit_refused(rc), "%s",
					audit_refusal(rc));
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	text[len] = '\0';
	if (asictl_parse_audit(text, &au, &r->nl.err)) {
		asictl_err_print(r->err, r->what, &r->nl.err);
		rc = ASICTL_EXIT_SYSTEM;
		goto out;
	}
	asictl_render_audit(&r->o, space, &au, r->a->summary);
	asictl_audit_free(&au);
	rc = 0;
out:
	free(text);
	close(fd);
	return rc;
}

int asictl_run(const struct asictl_args *a, FILE *out, FILE *err)
{
	struct run *r;
	int rc;

	switch (a->op) {
	case ASICTL_OP_HELP:
		if (a->topic)
			asictl_usage_topic(out, a->topic);
		else
			asictl_usage(out);
		return 0;
	case ASICTL_OP_VERSION:
		fprintf(out, "asictl %s (%s netlink family version %d)\n",
			ASICTL_VERSION, ASI_FAMILY_NAME, ASI_FAMILY_VERSION);
		return 0;
	default:
		break;
	}

	r = calloc(1, sizeof(*r));
	if (!r) {
		fputs("asictl: out of memory\n", err);
		return ASICTL_EXIT_SYSTEM;
	}
	r->a = a;
	r->err = err;
	/*
	 * The output of a command is kept until it succeeded, so an error
	 * never leaves half a table or unterminated JSON; monitor streams.
	 */
	if (a->op != ASICTL_OP_MONITOR) {
		r->mem = open_memstream(&r->text, &r->size);
		if (!r->mem) {
			fputs("asictl: out of memory\n", err);
			free(r);
			return ASICTL_EXIT_SYSTEM;
		}
	}
	out_init(&r->o, r->mem ? r->mem : out, a->json, a->pretty);
	if (a->op == ASICTL_OP_AUDIT) {
		rc = cmd_audit(r);
		goto out;
	}
	snprintf(r->what, sizeof(r->what), "family lookup");
	if (asictl_nl_open(&r->nl)) {
		rc = fail(r);
		goto out;
	}

	switch (a->op) {
	case ASICTL_OP_STATUS:
		rc = cmd_status(r);
		break;
	case ASICTL_OP_CLASS_SHOW:
	case ASICTL_OP_STATS:
		rc = cmd_class_show(r);
		break;
	case ASICTL_OP_STATS_RESET:
		rc = cmd_stats_reset(r);
		break;
	case ASICTL_OP_STUN_SHOW:
		rc = cmd_stun_show(r);
		break;
	case ASICTL_OP_STUN_SET:
		rc = cmd_stun_set(r);
		break;
	case ASICTL_OP_MARK_ADD:
		rc = cmd_mark_add(r);
		break;
	case ASICTL_OP_MARK_DEL:
		rc = cmd_mark_del(r);
		break;
	case ASICTL_OP_MARK_LIST:
		rc = cmd_mark_list(r);
		break;
	case ASICTL_OP_EXITS:
		rc = cmd_exits(r);
		break;
	case ASICTL_OP_MONITOR:
		rc = cmd_monitor(r);
		break;
	default:
		rc = ASICTL_EXIT_USAGE;
	}
out:
	if (r->mem) {
		fclose(r->mem);
		if (!rc)
			fwrite(r->text, 1, r->size, out);
		free(r->text);
	}
	if (fflush(out) && !rc) {
		fprintf(err, "asictl: cannot write the output: %s\n",
			strerror(errno));
		rc = ASICTL_EXIT_SYSTEM;
	}
	asictl_nl_close(&r->nl);
	free(r);
	return rc;
}
