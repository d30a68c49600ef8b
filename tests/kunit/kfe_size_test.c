// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the size policies: what st_size reports under
 * size=exact, size=page and size=zero, and how it follows the content.
 */
#include <kunit/test.h>
#include <linux/kernfs.h>
#include <linux/seq_file.h>

#include "kfe_test.h"

#define KFE_SIZE_TEST_LONG	(3 * PAGE_SIZE + 17)

struct kfe_size_test {
	struct vfsmount *mnt;
	struct kfe_dir *dir;
	const char *text;	/* what "seq" and "raw" show */
};

static int kfe_size_test_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct kfe_size_test *t = of->kn->priv;

	seq_puts(sf, t->text);
	return 0;
}

static ssize_t kfe_size_test_raw_read(struct kernfs_open_file *of, char *buf,
				      size_t bytes, loff_t off)
{
	struct kfe_size_test *t = of->kn->priv;
	size_t len = strlen(t->text);

	if (off >= len)
		return 0;
	bytes = min_t(size_t, bytes, len - off);
	memcpy(buf, t->text + off, bytes);
	return bytes;
}

/* KFE_SIZE_TEST_LONG bytes, more than one seq_file buffer. */
static int kfe_size_test_long_show(struct seq_file *sf, void *v)
{
	int i;

	for (i = 0; i < KFE_SIZE_TEST_LONG; i++)
		seq_putc(sf, 'a' + i % 26);
	return 0;
}

static void *kfe_size_test_iter_start(struct seq_file *sf, loff_t *pos)
{
	return *pos < 3 ? pos : NULL;
}

static void *kfe_size_test_iter_next(struct seq_file *sf, void *v,
				     loff_t *pos)
{
	++*pos;
	return kfe_size_test_iter_start(sf, pos);
}

static void kfe_size_test_iter_stop(struct seq_file *sf, void *v)
{
}

static int kfe_size_test_iter_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "record %lld\n", *(loff_t *)v);
	return 0;
}

static ssize_t kfe_size_test_write(struct kernfs_open_file *of, char *buf,
				   size_t bytes, loff_t off)
{
	return bytes;
}

static const struct kernfs_ops kfe_size_test_seq_ops = {
	.seq_show = kfe_size_test_seq_show,
};

static const struct kernfs_ops kfe_size_test_raw_ops = {
	.read = kfe_size_test_raw_read,
};

static const struct kernfs_ops kfe_size_test_long_ops = {
	.seq_show = kfe_size_test_long_show,
};

static const struct kernfs_ops kfe_size_test_iter_ops = {
	.seq_start = kfe_size_test_iter_start,
	.seq_next = kfe_size_test_iter_next,
	.seq_stop = kfe_size_test_iter_stop,
	.seq_show = kfe_size_test_iter_show,
};

static const struct kernfs_ops kfe_size_test_write_ops = {
	.write = kfe_size_test_write,
};

static const struct {
	const char *name;
	const struct kernfs_ops *ops;
	umode_t mode;
} kfe_size_test_files[] = {
	{ "seq",	&kfe_size_test_seq_ops,		0444 },
	{ "raw",	&kfe_size_test_raw_ops,		0444 },
	{ "long",	&kfe_size_test_long_ops,	0444 },
	{ "iter",	&kfe_size_test_iter_ops,	0444 },
	{ "volatile",	&kfe_size_test_seq_ops,		0444 },
	{ "wronly",	&kfe_size_test_write_ops,	0200 },
};

static int kfe_size_test_callback(const char *name, umode_t *mode,
				  void **data, const struct kernfs_ops **ops)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kfe_size_test_files); i++) {
		if (!strcmp(name, kfe_size_test_files[i].name)) {
			*mode = kfe_size_test_files[i].mode;
			*ops = kfe_size_test_files[i].ops;
			return 1;
		}
	}
	return 0;
}

static const struct kfe_entry kfe_size_test_entries[] = {
	{ "seq",	kfe_size_test_callback },
	{ "raw",	kfe_size_test_callback },
	{ "long",	kfe_size_test_callback },
	{ "iter",	kfe_size_test_callback },
	{ "volatile",	kfe_size_test_callback, KFE_ENTRY_VOLATILE },
	{ "wronly",	kfe_size_test_callback },
};

/* Mount with @options and build the test directory. */
static void kfe_size_test_setup(struct kunit *test, const char *options)
{
	struct kfe_size_test *t = test->priv;

	t->mnt = kfe_test_mount(options);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->mnt));
	t->dir = kfe_create_events_root("kfe_size_test", NULL,
					kfe_size_test_entries,
					ARRAY_SIZE(kfe_size_test_entries), t);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
}

static loff_t kfe_size_test_size(struct kunit *test, const char *name)
{
	struct kfe_size_test *t = test->priv;
	char path[64];
	struct kstat st;

	snprintf(path, sizeof(path), "kfe_size_test/%s", name);
	KUNIT_ASSERT_EQ_MSG(test, kfe_test_stat(t->mnt, path, &st), 0, "%s", path);
	return st.size;
}

static int kfe_size_test_init(struct kunit *test)
{
	struct kfe_size_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->text = "twelve bytes";
	test->priv = t;
	return 0;
}

static void kfe_size_test_exit(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;
	struct vfsmount *mnt;

	kfe_remove_dir(t->dir);
	if (!IS_ERR_OR_NULL(t->mnt))
		kern_unmount(t->mnt);
	/* Leave the shared superblock with the default policy. */
	mnt = kfe_test_mount("size=exact");
	if (!IS_ERR(mnt))
		kern_unmount(mnt);
}

static void kfe_size_test_exact_is_content_length(struct kunit *test)
{
	kfe_size_test_setup(test, "size=exact");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "raw"), 12);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "long"),
			KFE_SIZE_TEST_LONG);
}

static void kfe_size_test_exact_falls_back_to_page(struct kunit *test)
{
	kfe_size_test_setup(test, "size=exact");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "volatile"), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "iter"), PAGE_SIZE);
}

static void kfe_size_test_write_only_is_zero(struct kunit *test)
{
	static const char * const policies[] = {
		"size=exact", "size=page", "size=zero",
	};
	int i;

	kfe_size_test_setup(test, "");
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		struct vfsmount *mnt = kfe_test_mount(policies[i]);

		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		KUNIT_EXPECT_EQ_MSG(test, kfe_size_test_size(test, "wronly"), 0,
				    "%s", policies[i]);
		kern_unmount(mnt);
	}
}

static void kfe_size_test_page_policy(struct kunit *test)
{
	kfe_size_test_setup(test, "size=page");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "long"), PAGE_SIZE);
}

static void kfe_size_test_zero_policy(struct kunit *test)
{
	kfe_size_test_setup(test, "size=zero");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 0);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "raw"), 0);
}

/* A policy change reaches the inodes that already exist. */
static void kfe_size_test_remount_changes_live_inodes(struct kunit *test)
{
	struct vfsmount *mnt;

	kfe_size_test_setup(test, "size=exact");
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);

	mnt = kfe_test_mount("size=zero");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 0);
	kern_unmount(mnt);

	mnt = kfe_test_mount("size=exact");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);
	kern_unmount(mnt);
}

static void kfe_size_test_file_changed_updates_size(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;

	kfe_size_test_setup(test, "size=exact");
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);

	/* The inode is live (stat above): both it and the node change. */
	t->text = "five!";
	kfe_file_changed(kfe_dir_file(t->dir, "seq"));
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 5);
	KUNIT_EXPECT_EQ(test, kfe_dir_file(t->dir, "seq")->attr.size, 5);

	/* Not told: "raw" keeps its old size, as documented. */
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "raw"), 12);
}

static void kfe_size_test_bad_option_changes_nothing(struct kunit *test)
{
	static const char * const bad[] = {
		"size=huge", "uid=-1", "gid=x", "mode=8", "mode=10000", "nosuch=1",
	};
	struct vfsmount *mnt;
	int i;

	kfe_size_test_setup(test, "size=page");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mnt = kfe_test_mount(bad[i]);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(mnt), "%s", bad[i]);
		if (!IS_ERR(mnt))
			kern_unmount(mnt);
	}
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), PAGE_SIZE);
}

static struct kunit_case kfe_size_test_cases[] = {
	KUNIT_CASE(kfe_size_test_exact_is_content_length),
	KUNIT_CASE(kfe_size_test_exact_falls_back_to_page),
	KUNIT_CASE(kfe_size_test_write_only_is_zero),
	KUNIT_CASE(kfe_size_test_page_policy),
	KUNIT_CASE(kfe_size_test_zero_policy),
	KUNIT_CASE(kfe_size_test_remount_changes_live_inodes),
	KUNIT_CASE(kfe_size_test_file_changed_updates_size),
	KUNIT_CASE(kfe_size_test_bad_option_changes_nothing),
	{}
};

static struct kunit_suite kfe_size_test_suite = {
	.name = "kfe_size",
	.init = kfe_size_test_init,
	.exit = kfe_size_test_exit,
	.test_cases = kfe_size_test_cases,
};

kunit_test_suite(kfe_size_test_suite);

MODULE_DESCRIPTION("KUnit tests for the kernfs_events size policies");
MODULE_LICENSE("GPL");
