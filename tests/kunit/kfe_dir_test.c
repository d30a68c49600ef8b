// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the entry-table API: kfe_create_events_root(),
 * kfe_create_dir(), kfe_remove_dir() and what user space sees of them.
 */
#include <kunit/test.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/kernfs.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>

#include "kfe_test.h"

#define KFE_DIR_TEST_NAME	"kfe_dir_test"

struct kfe_dir_test_data {
	const char *text;		/* what every file shows */
	bool hide;			/* leave "hidden" out */
	int fail_with;			/* "fails" returns this, if non-zero */
	struct vfsmount *mnt;		/* for "probe" */
	int probe_lookup;		/* what "probe" saw of the directory */
	int subdirs_calls;		/* times kfe_dir_test_subdirs() ran */
	int subdirs_fail;		/* it fails with this, if non-zero */
	int reclaimed_calls;		/* times reclaim gave "sub" back */
	u32 sub_ino;			/* the number "sub" is made with */
};

static int kfe_dir_test_render(struct seq_file *sf, struct kernfs_node *kn)
{
	struct kfe_dir_test_data *d = kn->priv;

	seq_puts(sf, d->text);
	return 0;
}

static int kfe_dir_test_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	return kfe_dir_test_render(sf, of->kn);
}

static loff_t kfe_dir_test_size(struct kernfs_node *kn)
{
	return kfe_file_size(kn, kfe_dir_test_render);
}

static const struct kernfs_ops kfe_dir_test_ops = {
	.seq_show	= kfe_dir_test_show,
	.size		= kfe_dir_test_size,
};

struct kfe_dir_test_probe {
	struct vfsmount *mnt;
	int ret;
	struct completion done;
};

static int kfe_dir_test_probe_fn(void *arg)
{
	struct kfe_dir_test_probe *p = arg;
	struct kstat st;

	p->ret = kfe_test_stat(p->mnt, KFE_DIR_TEST_NAME, &st);
	complete(&p->done);
	return 0;
}

/* Look up the test directory as another task would, from a kthread. */
static int kfe_dir_test_probe(struct vfsmount *mnt)
{
	struct kfe_dir_test_probe p = { .mnt = mnt };
	struct task_struct *task;

	init_completion(&p.done);
	task = kthread_run(kfe_dir_test_probe_fn, &p, "kfe_dir_probe");
	if (IS_ERR(task))
		return PTR_ERR(task);
	wait_for_completion(&p.done);
	return p.ret;
}

static int kfe_dir_test_callback(const char *name, umode_t *mode,
				 void **data, const struct kernfs_ops **ops)
{
	struct kfe_dir_test_data *d = *data;

	if (!strcmp(name, "hidden") && d->hide)
		return 0;
	if (!strcmp(name, "fails") && d->fail_with)
		return d->fail_with;
	if (!strcmp(name, "probe") && d->mnt)
		d->probe_lookup = kfe_dir_test_probe(d->mnt);
	*mode = strcmp(name, "private") ? 0444 : 0400;
	*ops = &kfe_dir_test_ops;
	return 1;
}

static const struct kfe_entry kfe_dir_test_entries[] = {
	{ .name = "shown",	.callback = kfe_dir_test_callback },
	{ .name = "hidden",	.callback = kfe_dir_test_callback },
	{ .name = "private",	.callback = kfe_dir_test_callback },
	{ .name = "fails",	.callback = kfe_dir_test_callback },
	{ .name = "probe",	.callback = kfe_dir_test_callback },
};

struct kfe_dir_test {
	struct vfsmount *mnt;
	struct kfe_dir_test_data data;
	struct kfe_dir *dir;
};

static int kfe_dir_test_init(struct kunit *test)
{
	struct kfe_dir_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->mnt = kfe_test_mount("");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->mnt));
	t->data.text = "kfe dir test\n";
	test->priv = t;
	return 0;
}

static void kfe_dir_test_exit(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;

	kfe_remove_dir(t->dir);
	kern_unmount(t->mnt);
}

static struct kfe_dir *kfe_dir_test_create(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;

	return kfe_create_events_root(KFE_DIR_TEST_NAME, NULL,
				      kfe_dir_test_entries,
				      ARRAY_SIZE(kfe_dir_test_entries),
				      &t->data);
}

/* Makes "sub", a lazy directory with the first entry. */
static int kfe_dir_test_subdirs(struct kfe_dir *dir, void *data)
{
	struct kfe_dir_test_data *d = data;
	struct kfe_dir *sub;

	d->subdirs_calls++;
	sub = kfe_create_lazy_dir("sub", dir, kfe_dir_test_entries, 1, d,
				  NULL, d->sub_ino);
	if (IS_ERR(sub))
		return PTR_ERR(sub);
	return d->subdirs_fail;
}

/* kfe_dir_test_subdirs() makes one directory. */
static unsigned int kfe_dir_test_nr_subdirs(void *data)
{
	return 1;
}

static void kfe_dir_test_reclaimed(struct kfe_dir *dir, void *data)
{
	struct kfe_dir_test_data *d = data;

	d->reclaimed_calls++;
}

static const struct kfe_subdirs kfe_dir_test_dirs = {
	.create		= kfe_dir_test_subdirs,
	.count		= kfe_dir_test_nr_subdirs,
	.reclaimed	= kfe_dir_test_reclaimed,
};

/*
 * The last block of the numbers kernfs leaves to its owner, which the
 * mirror would give only to the 65,536th system of its 2,048th instance;
 * "sub" takes the block before.
 */
#define KFE_DIR_TEST_INO	(U32_MAX - KERNFS_LAZY_INO_BLOCK + 1)

static struct kfe_dir *kfe_dir_test_create_lazy_ino(struct kunit *test,
						    u32 ino)
{
	struct kfe_dir_test *t = test->priv;

	return kfe_create_lazy_events_root(KFE_DIR_TEST_NAME, NULL,
					   kfe_dir_test_entries,
					   ARRAY_SIZE(kfe_dir_test_entries),
					   &t->data, &kfe_dir_test_dirs, ino);
}

static struct kfe_dir *kfe_dir_test_create_lazy(struct kunit *test)
{
	return kfe_dir_test_create_lazy_ino(test, 0);
}

/* The error of a creation expected to fail; one that succeeded is undone. */
static long kfe_dir_test_err(struct kfe_dir *dir)
{
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	kfe_remove_dir(dir);
	return 0;
}

static long kfe_dir_test_root_err(const char *name,
				  const struct kfe_entry *entries,
				  int nr_entries, void *data)
{
	return kfe_dir_test_err(kfe_create_events_root(name, NULL, entries,
						       nr_entries, data));
}

/* The test directory exists, as kernfs and as the VFS see it. */
static bool kfe_dir_test_exists(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kernfs_node *kn;
	struct kstat st;
	int vfs;

	kn = kernfs_find_and_get(kfe_root_node(), KFE_DIR_TEST_NAME);
	kernfs_put(kn);
	vfs = kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME, &st);
	KUNIT_EXPECT_EQ(test, !kn, vfs == -ENOENT);
	return kn;
}

static void kfe_dir_test_files_follow_callback(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kernfs_node *kn, *other;

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	kn = kernfs_find_and_get(kfe_dir_node(t->dir), "shown");
	KUNIT_ASSERT_NOT_NULL(test, kn);
	KUNIT_EXPECT_EQ(test, kn->mode, S_IFREG | 0444);
	KUNIT_EXPECT_PTR_EQ(test, kn->priv, (void *)&t->data);
	KUNIT_EXPECT_PTR_EQ(test, kn->attr.ops, &kfe_dir_test_ops);
	kernfs_put(kn);
	other = kfe_dir_get_file(t->dir, "shown");
	KUNIT_EXPECT_PTR_EQ(test, other, kn);
	kernfs_put(other);

	kn = kfe_dir_get_file(t->dir, "private");
	KUNIT_ASSERT_NOT_NULL(test, kn);
	KUNIT_EXPECT_EQ(test, kn->mode, S_IFREG | 0400);
	kernfs_put(kn);
}

static void kfe_dir_test_callback_hides_entry(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kstat st;

	t->data.hide = true;
	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	KUNIT_EXPECT_NULL(test, kfe_dir_get_file(t->dir, "hidden"));
	KUNIT_EXPECT_EQ(test, kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/hidden",
					    &st), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/shown",
					    &st), 0);
}

static void kfe_dir_test_read_through_vfs(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	char buf[64];

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	KUNIT_EXPECT_EQ(test, kfe_test_read(t->mnt, KFE_DIR_TEST_NAME "/shown",
					    buf, sizeof(buf)),
			(ssize_t)strlen(t->data.text));
	KUNIT_EXPECT_STREQ(test, buf, t->data.text);
}

static void kfe_dir_test_invisible_while_built(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;

	t->data.mnt = t->mnt;
	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	/* "probe" looked while the directory's files were being decided. */
	KUNIT_EXPECT_EQ(test, t->data.probe_lookup, -ENOENT);
	KUNIT_EXPECT_TRUE(test, kfe_dir_test_exists(test));
}

static void kfe_dir_test_subdir_and_nlink(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kfe_dir *sub;
	struct kstat st;

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	sub = kfe_create_dir("sub", t->dir, kfe_dir_test_entries, 1, &t->data);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sub));

	KUNIT_EXPECT_EQ(test,
			kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/sub/shown", &st),
			0);
	KUNIT_ASSERT_EQ(test, kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME, &st), 0);
	KUNIT_EXPECT_EQ(test, st.nlink, 3);
	sub = kfe_create_dir("x", NULL, NULL, 0, NULL);
	KUNIT_EXPECT_EQ(test, kfe_dir_test_err(sub), -EINVAL);
}

static void kfe_dir_test_remove_is_recursive(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kfe_dir *sub;

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	sub = kfe_create_dir("sub", t->dir, NULL, 0, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sub));
	sub = kfe_create_dir("leaf", sub, NULL, 0, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sub));

	kfe_remove_dir(t->dir);
	t->dir = NULL;
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_exists(test));
}

static void kfe_dir_test_duplicate_name_fails(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	char buf[64];

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	KUNIT_EXPECT_EQ(test, kfe_dir_test_err(kfe_dir_test_create(test)), -EEXIST);
	KUNIT_EXPECT_GT(test, kfe_test_read(t->mnt, KFE_DIR_TEST_NAME "/shown",
					    buf, sizeof(buf)), 0);
}

static void kfe_dir_test_name_longer_than_name_max(struct kunit *test)
{
	struct kfe_entry entry = { .callback = kfe_dir_test_callback };
	struct kfe_dir_test *t = test->priv;
	char *name;

	name = kunit_kzalloc(test, NAME_MAX + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'n', NAME_MAX + 1);

	KUNIT_EXPECT_EQ(test, kfe_dir_test_root_err(name, NULL, 0, NULL),
			-ENAMETOOLONG);

	entry.name = name;
	KUNIT_EXPECT_EQ(test, kfe_dir_test_root_err(KFE_DIR_TEST_NAME, &entry, 1,
						    &t->data),
			-ENAMETOOLONG);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_exists(test));

	name[NAME_MAX] = '\0';
	t->dir = kfe_create_events_root(name, NULL, NULL, 0, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(t->dir));
}

static void kfe_dir_test_bad_names_rejected(struct kunit *test)
{
	static const char * const bad[] = { "", ".", "..", "a/b" };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kfe_dir_test_root_err(bad[i], NULL, 0, NULL),
				    -EINVAL, "name '%s'", bad[i]);
}

static void kfe_dir_test_callback_error_creates_nothing(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;

	t->data.fail_with = -ENOMEM;
	KUNIT_EXPECT_EQ(test, kfe_dir_test_err(kfe_dir_test_create(test)), -ENOMEM);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_exists(test));

	/* Nothing was left behind under the name. */
	t->data.fail_with = 0;
	t->dir = kfe_dir_test_create(test);
	KUNIT_EXPECT_FALSE(test, IS_ERR(t->dir));
}

/*
 * The variable behind a failslab knob in debugfs (fault-injection.rst).
 * debugfs keeps it in the inode's i_private; kernel_write() cannot reach
 * these files, which have no write_iter.
 */
static void *kfe_dir_test_failslab(struct kunit *test, const char *knob)
{
	char name[64];
	struct path path;
	void *var;

	snprintf(name, sizeof(name), "/sys/kernel/debug/failslab/%s", knob);
	KUNIT_ASSERT_EQ_MSG(test, kern_path(name, 0, &path), 0, "%s", name);
	var = d_inode(path.dentry)->i_private;
	path_put(&path);
	return var;
}

/*
 * Fail the first, second, ... allocation of a creation until one has no
 * allocation left to fail. A creation whose allocation failed must either
 * return -ENOMEM and leave nothing, or have recovered (kmemleak and the
 * IDR preload tolerate a failure) and be complete; kmemleak looks for
 * leaks after the run.
 */
static void kfe_dir_test_allocation_failure_creates_nothing(struct kunit *test)
{
	bool *ignore_gfp_wait = kfe_dir_test_failslab(test, "ignore-gfp-wait");
	unsigned long *verbose = kfe_dir_test_failslab(test, "verbose");
	unsigned long old_verbose = *verbose;
	bool old_ignore = *ignore_gfp_wait;
	struct kfe_dir_test *t = test->priv;
	unsigned int nth, left, failed = 0;
	struct kernfs_node *kn;
	struct kfe_dir *dir;

	/* Fail GFP_KERNEL allocations too, without a stack dump for each. */
	*verbose = 0;
	*ignore_gfp_wait = false;
	for (nth = 1; nth < 1000; nth++) {
		current->fail_nth = nth;
		dir = kfe_dir_test_create(test);
		left = current->fail_nth;
		current->fail_nth = 0;
		if (IS_ERR(dir)) {
			failed++;
			KUNIT_EXPECT_EQ(test, PTR_ERR(dir), -ENOMEM);
			KUNIT_EXPECT_FALSE(test, kfe_dir_test_exists(test));
			continue;
		}
		kn = kfe_dir_get_file(dir, "probe");
		KUNIT_EXPECT_NOT_NULL(test, kn);
		kernfs_put(kn);
		if (left)
			break;
		kfe_remove_dir(dir);
	}
	*ignore_gfp_wait = old_ignore;
	*verbose = old_verbose;

	t->dir = dir;
	KUNIT_EXPECT_FALSE(test, IS_ERR(dir));
	KUNIT_EXPECT_NE(test, left, 0U);
	/* A directory, five files and their sizes: many places to fail. */
	KUNIT_EXPECT_GE(test, failed, 6U);
	KUNIT_EXPECT_TRUE(test, kfe_dir_test_exists(test));
}

static void kfe_dir_test_open_file_gets_enodev_after_removal(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct file *file;
	loff_t pos = 0;
	char buf[64];

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	file = file_open_root_mnt(t->mnt, KFE_DIR_TEST_NAME "/shown",
				  O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));

	kfe_remove_dir(t->dir);
	t->dir = NULL;
	KUNIT_EXPECT_EQ(test, kernel_read(file, buf, sizeof(buf), &pos),
			(ssize_t)-ENODEV);
	fput(file);
}

static void kfe_dir_test_inode_numbers_unique_and_stable(struct kunit *test)
{
	static const char * const paths[] = {
		KFE_DIR_TEST_NAME, KFE_DIR_TEST_NAME "/shown",
		KFE_DIR_TEST_NAME "/private", KFE_DIR_TEST_NAME "/probe",
	};
	struct kfe_dir_test *t = test->priv;
	u64 ino[ARRAY_SIZE(paths)];
	struct kernfs_node *kn;
	struct kstat st;
	int i, j;

	t->dir = kfe_dir_test_create(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		KUNIT_ASSERT_EQ(test, kfe_test_stat(t->mnt, paths[i], &st), 0);
		ino[i] = st.ino;
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ino[i], ino[j]);
	}
	kn = kfe_dir_get_file(t->dir, "shown");
	KUNIT_ASSERT_NOT_NULL(test, kn);
	KUNIT_EXPECT_EQ(test, ino[1], kernfs_ino(kn));
	kernfs_put(kn);

	/* Drop the dentries and inodes; the numbers come back the same. */
	shrink_dcache_sb(t->mnt->mnt_sb);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		KUNIT_ASSERT_EQ(test, kfe_test_stat(t->mnt, paths[i], &st), 0);
		KUNIT_EXPECT_EQ(test, st.ino, ino[i]);
	}
}

static bool kfe_dir_test_has_children(struct kfe_dir *dir)
{
	return !RB_EMPTY_ROOT(&kfe_dir_node(dir)->dir.children);
}

static void kfe_dir_test_lazy_content_made_on_first_use(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kernfs_node *kn;
	struct kstat st;

	t->dir = kfe_dir_test_create_lazy(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_has_children(t->dir));
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 0);

	KUNIT_EXPECT_EQ(test,
			kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/sub/shown", &st),
			0);
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 1);
	KUNIT_ASSERT_EQ(test, kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME, &st), 0);
	KUNIT_EXPECT_EQ(test, st.nlink, 3);
	kn = kfe_dir_get_file(t->dir, "shown");
	KUNIT_EXPECT_NOT_NULL(test, kn);
	kernfs_put(kn);
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 1);
}

/* stat() of a lazy directory reports its link count, populating nothing. */
static void kfe_dir_test_lazy_stat_counts_without_populating(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kstat st;

	t->dir = kfe_dir_test_create_lazy(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	KUNIT_ASSERT_EQ(test, kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME, &st), 0);
	KUNIT_EXPECT_EQ(test, st.nlink, 3);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_has_children(t->dir));
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 0);
}

static void kfe_dir_test_lazy_error_fails_access_then_retries(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	struct kstat st;

	t->data.fail_with = -EIO;
	t->dir = kfe_dir_test_create_lazy(test);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	KUNIT_EXPECT_EQ(test,
			kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/shown", &st),
			-EIO);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_has_children(t->dir));

	/* A failing subdirs function: its "sub" goes with the files. */
	t->data.fail_with = 0;
	t->data.subdirs_fail = -ENOSPC;
	KUNIT_EXPECT_EQ(test,
			kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/shown", &st),
			-ENOSPC);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_has_children(t->dir));
	/* kfe_dir_get_file() tries again, and fails again. */
	KUNIT_EXPECT_NULL(test, kfe_dir_get_file(t->dir, "shown"));

	t->data.subdirs_fail = 0;
	KUNIT_EXPECT_EQ(test,
			kfe_test_stat(t->mnt, KFE_DIR_TEST_NAME "/sub", &st), 0);
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 3);
}

/* The inode numbers of the test directory's "shown" and "sub/shown". */
static void kfe_dir_test_lazy_inos(struct kunit *test, u64 ino[2])
{
	struct kfe_dir_test *t = test->priv;
	struct kernfs_node *sub, *kn;

	kn = kernfs_find_and_get(kfe_dir_node(t->dir), "shown");
	sub = kernfs_find_and_get(kfe_dir_node(t->dir), "sub");
	KUNIT_ASSERT_NOT_NULL(test, kn);
	KUNIT_ASSERT_NOT_NULL(test, sub);
	ino[0] = kernfs_ino(kn);
	kernfs_put(kn);
	kn = kernfs_find_and_get(sub, "shown");
	kernfs_put(sub);
	KUNIT_ASSERT_NOT_NULL(test, kn);
	ino[1] = kernfs_ino(kn);
	kernfs_put(kn);
}

/*
 * kfe_dir_reclaim() gives back the nodes of a lazy tree nothing uses,
 * from the bottom up, and says so to the subdirs' reclaimed(); the next
 * access makes them again with their numbers. Run as in a shrinker,
 * inside lockdep's fs_reclaim map: a lock it waits for that is held
 * elsewhere around an allocation is reported, and fails the run.
 */
static void kfe_dir_test_lazy_reclaimed_with_numbers_kept(struct kunit *test)
{
	struct kfe_dir_test *t = test->priv;
	u64 before[2], after[2];
	unsigned long nr;

	t->data.sub_ino = KFE_DIR_TEST_INO - KERNFS_LAZY_INO_BLOCK;
	t->dir = kfe_dir_test_create_lazy_ino(test, KFE_DIR_TEST_INO);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	KUNIT_EXPECT_EQ(test, kfe_dir_reclaim(t->dir), 0);
	kfe_dir_test_lazy_inos(test, before);

	fs_reclaim_acquire(GFP_KERNEL);
	nr = kfe_dir_reclaim(t->dir);
	fs_reclaim_release(GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, nr, 2);
	KUNIT_EXPECT_FALSE(test, kfe_dir_test_has_children(t->dir));
	KUNIT_EXPECT_EQ(test, t->data.reclaimed_calls, 1);

	kfe_dir_test_lazy_inos(test, after);
	KUNIT_EXPECT_EQ(test, t->data.subdirs_calls, 2);
	KUNIT_EXPECT_EQ(test, after[0], before[0]);
	KUNIT_EXPECT_EQ(test, after[1], before[1]);
	KUNIT_EXPECT_EQ(test, (u32)before[0], KFE_DIR_TEST_INO + 1);
}

static struct kunit_case kfe_dir_test_cases[] = {
	KUNIT_CASE(kfe_dir_test_files_follow_callback),
	KUNIT_CASE(kfe_dir_test_callback_hides_entry),
	KUNIT_CASE(kfe_dir_test_read_through_vfs),
	KUNIT_CASE(kfe_dir_test_invisible_while_built),
	KUNIT_CASE(kfe_dir_test_subdir_and_nlink),
	KUNIT_CASE(kfe_dir_test_remove_is_recursive),
	KUNIT_CASE(kfe_dir_test_duplicate_name_fails),
	KUNIT_CASE(kfe_dir_test_name_longer_than_name_max),
	KUNIT_CASE(kfe_dir_test_bad_names_rejected),
	KUNIT_CASE(kfe_dir_test_callback_error_creates_nothing),
	KUNIT_CASE(kfe_dir_test_allocation_failure_creates_nothing),
	KUNIT_CASE(kfe_dir_test_open_file_gets_enodev_after_removal),
	KUNIT_CASE(kfe_dir_test_inode_numbers_unique_and_stable),
	KUNIT_CASE(kfe_dir_test_lazy_content_made_on_first_use),
	KUNIT_CASE(kfe_dir_test_lazy_stat_counts_without_populating),
	KUNIT_CASE(kfe_dir_test_lazy_error_fails_access_then_retries),
	KUNIT_CASE(kfe_dir_test_lazy_reclaimed_with_numbers_kept),
	{}
};

static struct kunit_suite kfe_dir_test_suite = {
	.name = "kfe_dir",
	.init = kfe_dir_test_init,
	.exit = kfe_dir_test_exit,
	.test_cases = kfe_dir_test_cases,
};

kunit_test_suite(kfe_dir_test_suite);

MODULE_DESCRIPTION("KUnit tests for the kernfs_events entry-table API");
MODULE_LICENSE("GPL");
