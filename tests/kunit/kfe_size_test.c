// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the size policies: what st_size reports under
 * size=exact, size=page and size=zero, and that it follows the content
 * at every stat, whoever changed it.
 */
#include <kunit/test.h>
#include <linux/kernfs.h>
#include <linux/seq_file.h>

#include "kfe_test.h"

#define KFE_SIZE_TEST_LONG	(3 * PAGE_SIZE + 17)

struct kfe_size_test {
	struct vfsmount *mnt;
	struct kfe_dir *dir;
	const char *text;	/* what "seq" shows */
	int shows;		/* calls of kfe_size_test_seq_render() */
	loff_t known;		/* what "known" tells of its length */
	int tells;		/* calls of kfe_size_test_known_len() */
};

static int kfe_size_test_seq_render(struct seq_file *sf,
				    struct kernfs_node *kn)
{
	struct kfe_size_test *t = kn->priv;

	t->shows++;
	seq_puts(sf, t->text);
	return 0;
}

/* KFE_SIZE_TEST_LONG bytes, more than one seq_file buffer. */
static int kfe_size_test_long_render(struct seq_file *sf,
				     struct kernfs_node *kn)
{
	int i;

	for (i = 0; i < KFE_SIZE_TEST_LONG; i++)
		seq_putc(sf, 'a' + i % 26);
	return 0;
}

static int kfe_size_test_error_render(struct seq_file *sf,
				      struct kernfs_node *kn)
{
	return -EIO;
}

#define KFE_SIZE_TEST_FILE(name)					\
static int kfe_size_test_##name##_show(struct seq_file *sf, void *v)	\
{									\
	struct kernfs_open_file *of = sf->private;			\
									\
	return kfe_size_test_##name##_render(sf, of->kn);		\
}									\
									\
static loff_t kfe_size_test_##name##_size(struct kernfs_node *kn)	\
{									\
	return kfe_file_size(kn, kfe_size_test_##name##_render);	\
}									\
									\
static const struct kernfs_ops kfe_size_test_##name##_ops = {		\
	.seq_show	= kfe_size_test_##name##_show,			\
	.size		= kfe_size_test_##name##_size,			\
}

KFE_SIZE_TEST_FILE(seq);
KFE_SIZE_TEST_FILE(long);
KFE_SIZE_TEST_FILE(error);

/* "static" shows what "seq" shows, but says that its length is fixed. */
static loff_t kfe_size_test_static_size(struct kernfs_node *kn)
{
	return kfe_fixed_file_size(kn, kfe_size_test_seq_render);
}

static const struct kernfs_ops kfe_size_test_static_ops = {
	.seq_show	= kfe_size_test_seq_show,
	.size		= kfe_size_test_static_size,
};

/* "known" shows what "seq" shows, but may tell its length first. */
static loff_t kfe_size_test_known_len(struct kernfs_node *kn)
{
	struct kfe_size_test *t = kn->priv;

	t->tells++;
	return t->known;
}

static loff_t kfe_size_test_known_size(struct kernfs_node *kn)
{
	return kfe_known_file_size(kn, kfe_size_test_known_len,
				   kfe_size_test_seq_render);
}

static const struct kernfs_ops kfe_size_test_known_ops = {
	.seq_show	= kfe_size_test_seq_show,
	.size		= kfe_size_test_known_size,
};

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
	seq_printf(sf, "line %lld\n", *(loff_t *)v);
	return 0;
}

/* An iterator cannot be rendered in one call: no show for its size. */
static loff_t kfe_size_test_iter_size(struct kernfs_node *kn)
{
	return kfe_file_size(kn, NULL);
}

static ssize_t kfe_size_test_write(struct kernfs_open_file *of, char *buf,
				   size_t bytes, loff_t off)
{
	return bytes;
}

static const struct kernfs_ops kfe_size_test_iter_ops = {
	.seq_start	= kfe_size_test_iter_start,
	.seq_next	= kfe_size_test_iter_next,
	.seq_stop	= kfe_size_test_iter_stop,
	.seq_show	= kfe_size_test_iter_show,
	.size		= kfe_size_test_iter_size,
};

static const struct kernfs_ops kfe_size_test_write_ops = {
	.write		= kfe_size_test_write,
};

/* Readable, but no ->size(): kfe_create_*() must refuse it. */
static const struct kernfs_ops kfe_size_test_sizeless_ops = {
	.seq_show	= kfe_size_test_iter_show,
};

static const struct {
	const char *name;
	const struct kernfs_ops *ops;
	umode_t mode;
} kfe_size_test_files[] = {
	{ "seq",	&kfe_size_test_seq_ops,		0444 },
	{ "long",	&kfe_size_test_long_ops,	0444 },
	{ "error",	&kfe_size_test_error_ops,	0444 },
	{ "static",	&kfe_size_test_static_ops,	0444 },
	{ "known",	&kfe_size_test_known_ops,	0444 },
	{ "iter",	&kfe_size_test_iter_ops,	0444 },
	{ "wronly",	&kfe_size_test_write_ops,	0200 },
	{ "sizeless",	&kfe_size_test_sizeless_ops,	0444 },
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
	{ "long",	kfe_size_test_callback },
	{ "error",	kfe_size_test_callback },
	{ "static",	kfe_size_test_callback },
	{ "known",	kfe_size_test_callback },
	{ "iter",	kfe_size_test_callback },
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

/* The size of @name with the mount's options set to @options, which stay. */
static loff_t kfe_size_test_size_with(struct kunit *test, const char *options,
				      const char *name)
{
	struct vfsmount *mnt = kfe_test_mount(options);
	loff_t size;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "%s", options);
	size = kfe_size_test_size(test, name);
	kern_unmount(mnt);
	return size;
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
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "long"),
			KFE_SIZE_TEST_LONG);
}

/* An iterator reports PAGE_SIZE; a show that fails, the size at creation. */
static void kfe_size_test_exact_unmeasurable(struct kunit *test)
{
	kfe_size_test_setup(test, "size=exact");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "iter"), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "error"), 0);
}

static void kfe_size_test_write_only_is_zero(struct kunit *test)
{
	static const char * const policies[] = {
		"size=exact", "size=page", "size=zero",
	};
	int i;

	kfe_size_test_setup(test, "");
	for (i = 0; i < ARRAY_SIZE(policies); i++)
		KUNIT_EXPECT_EQ_MSG(test, kfe_size_test_size_with(test, policies[i],
								  "wronly"),
				    0, "%s", policies[i]);
}

static void kfe_size_test_page_policy(struct kunit *test)
{
	kfe_size_test_setup(test, "size=page");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "long"), PAGE_SIZE);
}

/* size=zero reports 0 without rendering anything. */
static void kfe_size_test_zero_policy(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;

	kfe_size_test_setup(test, "size=zero");

	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 0);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "long"), 0);
	KUNIT_EXPECT_EQ(test, t->shows, 0);
}

/* A policy change reaches the inodes that already exist. */
static void kfe_size_test_remount_changes_live_inodes(struct kunit *test)
{
	kfe_size_test_setup(test, "size=exact");
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);

	KUNIT_EXPECT_EQ(test, kfe_size_test_size_with(test, "size=zero", "seq"), 0);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size_with(test, "size=exact", "seq"),
			12);
}

/*
 * Content changed behind the layer's back, with nobody telling it: the
 * next stat of the live inode reports the new length, measured then.
 */
static void kfe_size_test_follows_unannounced_change(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;
	int shows;

	kfe_size_test_setup(test, "size=exact");
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 12);

	t->text = "five!";
	shows = t->shows;
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 5);
	KUNIT_EXPECT_EQ(test, t->shows, shows + 1);

	t->text = "";
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "seq"), 0);
}

/* Content that never changes is rendered at the first stat only. */
static void kfe_size_test_static_rendered_once(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;

	kfe_size_test_setup(test, "size=exact");
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "static"), 12);
	KUNIT_EXPECT_EQ(test, t->shows, 1);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "static"), 12);
	KUNIT_EXPECT_EQ(test, t->shows, 1);

	/* The policy still decides, and the length is kept across it. */
	KUNIT_EXPECT_EQ(test, kfe_size_test_size_with(test, "size=page", "static"),
			PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kfe_size_test_size_with(test, "size=exact", "static"),
			12);
	KUNIT_EXPECT_EQ(test, t->shows, 1);
}

/*
 * A length the owner tells is reported without rendering; -ENODATA
 * renders, another error is the owner's; the other policies do not ask.
 */
static void kfe_size_test_known_not_rendered(struct kunit *test)
{
	struct kfe_size_test *t = test->priv;

	kfe_size_test_setup(test, "size=exact");
	t->known = 7;
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "known"), 7);
	KUNIT_EXPECT_EQ(test, t->tells, 1);
	KUNIT_EXPECT_EQ(test, t->shows, 0);

	t->known = -ENODATA;
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "known"), 12);
	KUNIT_EXPECT_EQ(test, t->tells, 2);
	KUNIT_EXPECT_EQ(test, t->shows, 1);

	/* kernfs then reports the size given at creation */
	t->known = -EIO;
	KUNIT_EXPECT_EQ(test, kfe_size_test_size(test, "known"), 0);
	KUNIT_EXPECT_EQ(test, t->shows, 1);

	KUNIT_EXPECT_EQ(test, kfe_size_test_size_with(test, "size=page", "known"),
			PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, t->tells, 3);
}

/* A readable file that cannot report its size is refused, whole. */
static void kfe_size_test_readable_needs_size(struct kunit *test)
{
	static const struct kfe_entry entries[] = {
		{ "seq",	kfe_size_test_callback },
		{ "sizeless",	kfe_size_test_callback },
	};
	struct kfe_size_test *t = test->priv;
	struct kfe_dir *dir;
	struct kstat st;

	kfe_size_test_setup(test, "size=exact");
	dir = kfe_create_events_root("kfe_size_test_bad", NULL, entries,
				     ARRAY_SIZE(entries), t);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(dir), -EINVAL);
	if (!IS_ERR(dir))
		kfe_remove_dir(dir);
	KUNIT_EXPECT_EQ(test, kfe_test_stat(t->mnt, "kfe_size_test_bad", &st),
			-ENOENT);
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
	KUNIT_CASE(kfe_size_test_exact_unmeasurable),
	KUNIT_CASE(kfe_size_test_write_only_is_zero),
	KUNIT_CASE(kfe_size_test_page_policy),
	KUNIT_CASE(kfe_size_test_zero_policy),
	KUNIT_CASE(kfe_size_test_remount_changes_live_inodes),
	KUNIT_CASE(kfe_size_test_follows_unannounced_change),
	KUNIT_CASE(kfe_size_test_static_rendered_once),
	KUNIT_CASE(kfe_size_test_known_not_rendered),
	KUNIT_CASE(kfe_size_test_readable_needs_size),
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
