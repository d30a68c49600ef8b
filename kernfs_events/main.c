// SPDX-License-Identifier: GPL-2.0
/*
 * kernfs_events: the tracing events/ hierarchy served from kernfs.
 */
#include <linux/fs.h>
#include <linux/module.h>

#include "internal.h"
#include "trace.h"

/*
 * The filesystem is registered last and unregistered first: a module
 * still loading passes try_module_get(), so a mount made before the
 * tree is complete would keep a superblock on a root that a failed load
 * then destroys.
 */
static int __init kfe_init(void)
{
	int ret;

	ret = kfe_root_init();
	if (ret)
		return ret;
	ret = kfe_trace_files_init();
	if (ret)
		goto out_root;
	ret = kfe_trace_init();
	if (ret)
		goto out_files;
	ret = register_filesystem(&kfe_fs_type);
	if (ret)
		goto out_trace;
	return 0;

out_trace:
	kfe_trace_exit();
out_files:
	kfe_trace_files_exit();
out_root:
	kfe_root_exit();
	return ret;
}

static void __exit kfe_exit(void)
{
	unregister_filesystem(&kfe_fs_type);
	kfe_trace_exit();
	kfe_trace_files_exit();
	kfe_root_exit();
}

module_init(kfe_init);
module_exit(kfe_exit);

MODULE_DESCRIPTION("Trace events served from kernfs");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
