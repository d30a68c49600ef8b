/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kernfs_events KUnit suites: mount with options,
 * and look at files through the VFS as user space would.
 */
#ifndef KFE_TEST_H
#define KFE_TEST_H

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/string.h>

#include "../../kernfs_events/kernfs_events.h"

/*
 * Mount kernfs_events with @options ("key=value,..." or ""). The
 * superblock is shared, so this applies the options as a remount would.
 */
static inline struct vfsmount *kfe_test_mount(const char *options)
{
	struct fs_context *fc;
	struct vfsmount *mnt;
	char *opts, *p, *opt;
	int ret = 0;

	fc = fs_context_for_mount(kfe_filesystem(), 0);
	if (IS_ERR(fc))
		return ERR_CAST(fc);
	opts = kstrdup(options, GFP_KERNEL);
	if (!opts) {
		put_fs_context(fc);
		return ERR_PTR(-ENOMEM);
	}
	p = opts;
	while (!ret && (opt = strsep(&p, ",")) != NULL) {
		char *value = strchr(opt, '=');

		if (!*opt)
			continue;
		if (value)
			*value++ = '\0';
		ret = vfs_parse_fs_string(fc, opt, value,
					  value ? strlen(value) : 0);
	}
	kfree(opts);
	mnt = ret ? ERR_PTR(ret) : fc_mount(fc);
	put_fs_context(fc);
	return mnt;
}

/* Stat @path below the mount's root. */
static inline int kfe_test_stat(struct vfsmount *mnt, const char *path,
				struct kstat *st)
{
	struct path p;
	int ret;

	ret = vfs_path_lookup(mnt->mnt_root, mnt, path, 0, &p);
	if (ret)
		return ret;
	ret = vfs_getattr(&p, st, STATX_BASIC_STATS, AT_STATX_SYNC_AS_STAT);
	path_put(&p);
	return ret;
}

/* Read up to @len bytes of @path from offset 0; NUL-terminates @buf. */
static inline ssize_t kfe_test_read(struct vfsmount *mnt, const char *path,
				    char *buf, size_t len)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	file = file_open_root_mnt(mnt, path, O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = kernel_read(file, buf, len - 1, &pos);
	fput(file);
	buf[ret < 0 ? 0 : ret] = '\0';
	return ret;
}

/* Write @text to @path; returns what write() returned. */
static inline ssize_t kfe_test_write(struct vfsmount *mnt, const char *path,
				     const char *text)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	file = file_open_root_mnt(mnt, path, O_WRONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = kernel_write(file, text, strlen(text), &pos);
	fput(file);
	return ret;
}

#endif /* KFE_TEST_H */
