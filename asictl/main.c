// SPDX-License-Identifier: GPL-2.0
/* asictl: the operator's CLI for ASI. See asictl(8). */
#include "asictl.h"

int main(int argc, char **argv)
{
	struct asictl_args a;
	int rc;

	rc = asictl_parse_args(argc, argv, &a, stderr);
	if (rc)
		return rc;
	return asictl_run(&a, stdout, stderr);
}
