// SPDX-License-Identifier: GPL-2.0
/*
 * kernfs_events: the tracing events/ hierarchy served from kernfs.
 */
#include <linux/module.h>

#include "internal.h"
#include "trace.h"

static int __init kfe_init(void)
{
	int ret;

	ret = kfe_fs_init();
	if (ret)
		return ret;
	ret = kfe_trace_init();
	if (ret)
		kfe_fs_exit();
	return ret;
}

static void __exit kfe_exit(void)
{
	kfe_trace_exit();
	kfe_fs_exit();
}

module_init(kfe_init);
module_exit(kfe_exit);

MODULE_DESCRIPTION("Trace events served from kernfs");
MODULE_LICENSE("GPL");
