/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the kernfs_events module.
 */
#ifndef KERNFS_EVENTS_INTERNAL_H
#define KERNFS_EVENTS_INTERNAL_H

#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/kernfs.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/uidgid.h>

#define KFE_MAGIC	0x6b666576	/* "kfev" */

struct kfe_entry;

/* What st_size reports for a readable file; write-only files report 0. */
enum kfe_size_policy {
	KFE_SIZE_EXACT,		/* the content's length */
	KFE_SIZE_PAGE,		/* PAGE_SIZE, as sysfs */
	KFE_SIZE_ZERO,		/* 0, as eventfs */
};

/* tracefs's default: only root may look in, unless mode= or gid= widen it. */
#define KFE_DEFAULT_MODE	0700

/* The mount options in effect; one superblock, so one set. */
struct kfe_options {
	kuid_t			uid;
	kgid_t			gid;
	umode_t			mode;
	enum kfe_size_policy	size;
};

/* Which options a mount or remount gave explicitly. */
#define KFE_OPT_UID	BIT(0)
#define KFE_OPT_GID	BIT(1)
#define KFE_OPT_MODE	BIT(2)
#define KFE_OPT_SIZE	BIT(3)

struct kfe_fs_context {
	struct kernfs_fs_context kfc;	/* first: kernfs_get_tree() reads it */
	struct kfe_options	opts;
	unsigned int		given;	/* KFE_OPT_* */
};

/* mount.c */
extern struct file_system_type kfe_fs_type;
extern struct kernfs_root *kfe_root;
int kfe_root_init(void);
void kfe_root_exit(void);

/* options.c: kfe_opts.size is read with READ_ONCE() at each stat. */
extern struct kfe_options kfe_opts;
extern const struct fs_parameter_spec kfe_fs_parameters[];
void kfe_options_init(struct kfe_options *opts);
int kfe_parse_param(struct fs_context *fc, struct fs_parameter *param);
int kfe_apply_options(const struct kfe_fs_context *ctx,
		      struct super_block *sb, bool new_sb);
int kfe_show_options(struct seq_file *sf, struct kernfs_root *root);

/* dir.c */
int kfe_dir_populate(struct kernfs_node *kn);
unsigned int kfe_dir_nr_subdirs(struct kernfs_node *kn);
unsigned long kfe_dir_nr_populated(void);

#endif /* KERNFS_EVENTS_INTERNAL_H */
