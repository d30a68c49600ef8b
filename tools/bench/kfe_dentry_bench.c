// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's dentry-per-file baseline: an events tree built with
 * debugfs, which pins one dentry and one inode per directory and file
 * for as long as the tree exists, as tracefs did before eventfs (6.6).
 *
 * The tree's shape comes from user space: each line written to
 * /sys/kernel/debug/kfe_dentry_bench/build is a path "a/b/file" under
 * /sys/kernel/debug/kfe_dentry_bench/events; the directories on the way
 * are made as needed. Every file reads "0\n" and reports size 0, as
 * tracefs files did. Unloading the module removes the tree.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static struct dentry *kfe_bench_top;
static struct dentry *kfe_bench_events;

static ssize_t kfe_bench_file_read(struct file *file, char __user *buf,
				   size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(buf, count, ppos, "0\n", 2);
}

static const struct file_operations kfe_bench_file_fops = {
	.owner	= THIS_MODULE,
	.read	= kfe_bench_file_read,
	.llseek	= default_llseek,
};

/* The child @name of @parent, made as a directory if it does not exist. */
static struct dentry *kfe_bench_dir(struct dentry *parent, const char *name)
{
	struct dentry *d = debugfs_lookup(name, parent);

	if (d) {
		dput(d);	/* debugfs keeps its own reference */
		return d_is_dir(d) ? d : ERR_PTR(-ENOTDIR);
	}
	return debugfs_create_dir(name, parent);
}

static int kfe_bench_add_path(char *path)
{
	struct dentry *dir = kfe_bench_events, *d;
	char *name;

	while ((name = strsep(&path, "/")) && path) {
		if (!*name)
			return -EINVAL;
		dir = kfe_bench_dir(dir, name);
		if (IS_ERR(dir))
			return PTR_ERR(dir);
	}
	if (!name || !*name)
		return -EINVAL;
	d = debugfs_create_file(name, 0644, dir, NULL, &kfe_bench_file_fops);
	return PTR_ERR_OR_ZERO(d);
}

static ssize_t kfe_bench_build_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *buf, *pos, *line;
	int ret = 0;

	if (*ppos)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	pos = buf;
	while (!ret && (line = strsep(&pos, "\n")))
		if (*line)
			ret = kfe_bench_add_path(line);
	kfree(buf);
	return ret ?: count;
}

static const struct file_operations kfe_bench_build_fops = {
	.owner	= THIS_MODULE,
	.write	= kfe_bench_build_write,
	.llseek	= noop_llseek,
};

static int __init kfe_bench_init(void)
{
	kfe_bench_top = debugfs_create_dir("kfe_dentry_bench", NULL);
	if (IS_ERR(kfe_bench_top))
		return PTR_ERR(kfe_bench_top);
	kfe_bench_events = debugfs_create_dir("events", kfe_bench_top);
	debugfs_create_file("build", 0200, kfe_bench_top, NULL,
			    &kfe_bench_build_fops);
	return 0;
}

static void __exit kfe_bench_exit(void)
{
	debugfs_remove(kfe_bench_top);
}

module_init(kfe_bench_init);
module_exit(kfe_bench_exit);

MODULE_DESCRIPTION("kernfs_events benchmark: a dentry-per-file events tree");
MODULE_LICENSE("GPL");
