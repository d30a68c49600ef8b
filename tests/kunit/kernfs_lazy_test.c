// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the populate contract of lazy kernfs directories
 * (patches/0005): kernfs_create_lazy_dir_ns() and
 * kernfs_syscall_ops->populate(), on a kernfs root of its own; and for
 * giving their children back, with their inode numbers kept
 * (patches/0012, 0013): kernfs_depopulate().
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kernfs.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/stat.h>

#define KERNFS_LAZY_TEST_THREADS	4
#define KERNFS_LAZY_TEST_MAGIC		0x6b6c617a	/* "klaz" */

/* What the populate callback of a test directory does; its kn->priv. */
struct kernfs_lazy_test_dir {
	atomic_t calls;			/* times populate() ran */
	int fail_with;			/* if non-zero, fail after the files */
	bool lazy_child;		/* also create a lazy "sub" */
	const void *ns[2];		/* with a namespace: one "x" in each */
	struct completion started;	/* populate() is running */
	struct completion go;		/* ... and may go on */
	bool wait_for_go;
	struct task_struct *populater;	/* the task that ran it last */
	bool lockdep_held;		/* lockdep saw the active ref held */
	bool wait_after_a;		/* wait for "go" once "a" is made */
	struct completion made_a;	/* ... which is then in @a */
	struct kernfs_node *a;		/* holding a reference */
};

static const struct kernfs_ops kernfs_lazy_test_ops = { };

static struct kernfs_node *kernfs_lazy_test_file(struct kernfs_node *parent,
						 const char *name,
						 const void *ns)
{
	return __kernfs_create_file(parent, name, S_IFREG | 0444,
				    GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
				    &kernfs_lazy_test_ops, NULL, ns, NULL);
}

static int kernfs_lazy_test_populate(struct kernfs_node *kn)
{
	struct kernfs_lazy_test_dir *d = kn->priv;
	struct kernfs_node *child;
	int i;

	atomic_inc(&d->calls);
	WRITE_ONCE(d->populater, current);
#ifdef CONFIG_LOCKDEP
	WRITE_ONCE(d->lockdep_held, lock_is_held(&kn->dep_map));
#endif
	complete(&d->started);
	if (d->wait_for_go)
		wait_for_completion(&d->go);
	else
		msleep(20);	/* let concurrent first accesses pile up */

	if (d->ns[0]) {
		for (i = 0; i < ARRAY_SIZE(d->ns); i++) {
			child = kernfs_lazy_test_file(kn, "x", d->ns[i]);
			if (IS_ERR(child))
				return PTR_ERR(child);
		}
		return 0;
	}
	child = kernfs_lazy_test_file(kn, "a", NULL);
	if (IS_ERR(child))
		return PTR_ERR(child);
	if (d->wait_after_a) {
		kernfs_get(child);
		d->a = child;
		complete(&d->made_a);
		wait_for_completion(&d->go);
	}
	if (d->fail_with)
		return d->fail_with;
	child = kernfs_lazy_test_file(kn, "b", NULL);
	if (IS_ERR(child))
		return PTR_ERR(child);
	if (d->lazy_child) {
		child = kernfs_create_lazy_dir_ns(kn, "sub", 0755,
						  GLOBAL_ROOT_UID,
						  GLOBAL_ROOT_GID,
						  d + 1, NULL, 0);
		if (IS_ERR(child))
			return PTR_ERR(child);
	}
	return 0;
}

static struct kernfs_syscall_ops kernfs_lazy_test_scops = {
	.populate = kernfs_lazy_test_populate,
};

struct kernfs_lazy_test {
	struct kernfs_root *root;
	struct kernfs_lazy_test_dir d[2];	/* a directory and its "sub" */
	struct kernfs_node *dir;
	struct vfsmount *mnt;
};

/*
 * The test whose root kernfs_lazy_test_fs_type mounts. A file system
 * type embeds the lockdep keys of its superblocks, which must be static,
 * so it cannot live in the per-test kunit_kzalloc()ed state.
 */
static struct kernfs_lazy_test *kernfs_lazy_test_mounted;
static struct file_system_type kernfs_lazy_test_fs_type;

static int kernfs_lazy_test_init(struct kunit *test)
{
	struct kernfs_lazy_test *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < ARRAY_SIZE(t->d); i++) {
		atomic_set(&t->d[i].calls, 0);
		init_completion(&t->d[i].started);
		init_completion(&t->d[i].go);
		init_completion(&t->d[i].made_a);
	}
	t->root = kernfs_create_root(&kernfs_lazy_test_scops,
				     KERNFS_ROOT_CREATE_DEACTIVATED, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->root));
	kernfs_activate(kernfs_root_to_node(t->root));
	test->priv = t;
	return 0;
}

static void kernfs_lazy_test_exit(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;

	if (t->mnt)
		kern_unmount(t->mnt);
	if (kernfs_lazy_test_mounted == t) {
		unregister_filesystem(&kernfs_lazy_test_fs_type);
		kernfs_lazy_test_mounted = NULL;
	}
	kernfs_destroy_root(t->root);
}

static void kernfs_lazy_test_fc_free(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(kfc);
}

static const struct fs_context_operations kernfs_lazy_test_fc_ops = {
	.get_tree	= kernfs_get_tree,
	.free		= kernfs_lazy_test_fc_free,
};

static int kernfs_lazy_test_init_fs_context(struct fs_context *fc)
{
	struct kernfs_lazy_test *t = kernfs_lazy_test_mounted;
	struct kernfs_fs_context *kfc;

	kfc = kzalloc(sizeof(*kfc), GFP_KERNEL);
	if (!kfc)
		return -ENOMEM;
	kfc->root = t->root;
	kfc->magic = KERNFS_LAZY_TEST_MAGIC;
	fc->fs_private = kfc;
	fc->ops = &kernfs_lazy_test_fc_ops;
	fc->global = true;
	return 0;
}

static struct file_system_type kernfs_lazy_test_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "kernfs_lazy_test",
	.init_fs_context	= kernfs_lazy_test_init_fs_context,
	.kill_sb		= kernfs_kill_sb,
};

/* Mount the test's root, to reach it through the VFS as user space does. */
static void kernfs_lazy_test_mount(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct vfsmount *mnt;

	KUNIT_ASSERT_EQ(test, register_filesystem(&kernfs_lazy_test_fs_type),
			0);
	kernfs_lazy_test_mounted = t;
	mnt = kern_mount(&kernfs_lazy_test_fs_type);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	t->mnt = mnt;
}

/* Create the lazy directory "dir" numbered @ino, activated or not. */
static void kernfs_lazy_test_mkdir_ino(struct kunit *test, bool activate,
				       u32 ino)
{
	struct kernfs_lazy_test *t = test->priv;

	t->dir = kernfs_create_lazy_dir_ns(kernfs_root_to_node(t->root), "dir",
					   0755, GLOBAL_ROOT_UID,
					   GLOBAL_ROOT_GID, &t->d[0], NULL, ino);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dir));
	if (activate)
		kernfs_activate(t->dir);
}

/* Create the lazy directory "dir", activated unless told otherwise. */
static void kernfs_lazy_test_mkdir(struct kunit *test, bool activate)
{
	kernfs_lazy_test_mkdir_ino(test, activate, 0);
}

/* kernfs_find_and_get() of dir/@name: true if found. */
static bool kernfs_lazy_test_has(struct kernfs_lazy_test *t, const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(t->dir, name);

	kernfs_put(kn);
	return kn;
}

static void kernfs_lazy_test_populated_once_on_first_search(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;

	kernfs_lazy_test_mkdir(test, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 0);
	KUNIT_EXPECT_EQ(test, t->dir->dir.subdirs, 0);

	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "b"));
	KUNIT_EXPECT_FALSE(test, kernfs_lazy_test_has(t, "c"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
}

struct kernfs_lazy_test_thread {
	struct kernfs_lazy_test *t;
	struct kernfs_node *found;
	struct completion done;
	struct task_struct *task;
	atomic_t *ready;		/* if set, threads at the start line */
	struct completion *start;	/* ... which all leave at once */
	bool looking;			/* past the start line */
};

static int kernfs_lazy_test_finder(void *arg)
{
	struct kernfs_lazy_test_thread *th = arg;

	if (th->start) {
		atomic_inc(th->ready);
		wait_for_completion(th->start);
	}
	WRITE_ONCE(th->looking, true);
	th->found = kernfs_find_and_get(th->t->dir, "b");
	complete(&th->done);
	return 0;
}

/*
 * Whether @th is in its lookup and asleep in it. The only place a
 * lookup of a lazy directory sleeps is the wait for its populate() to
 * finish; a preempted task stays TASK_RUNNING.
 */
static bool kernfs_lazy_test_blocked(struct kernfs_lazy_test_thread *th)
{
	return READ_ONCE(th->looking) &&
	       (READ_ONCE(th->task->__state) & TASK_UNINTERRUPTIBLE);
}

static void kernfs_lazy_test_concurrent_first_lookups_share_one_populate(struct kunit *test)
{
	struct kernfs_lazy_test_thread th[KERNFS_LAZY_TEST_THREADS] = { };
	struct kernfs_lazy_test *t = test->priv;
	DECLARE_COMPLETION_ONSTACK(start);
	atomic_t ready = ATOMIC_INIT(0);
	struct task_struct *populater;
	int i, n, blocked = 0;
	unsigned long end;

	kernfs_lazy_test_mkdir(test, true);
	t->d[0].wait_for_go = true;
	for (n = 0; n < ARRAY_SIZE(th); n++) {
		th[n].t = t;
		th[n].ready = &ready;
		th[n].start = &start;
		init_completion(&th[n].done);
		th[n].task = kthread_create(kernfs_lazy_test_finder, &th[n],
					    "kernfs_lazy_%d", n);
		if (IS_ERR(th[n].task))
			break;
		get_task_struct(th[n].task);
		wake_up_process(th[n].task);
	}

	/* All wait at the start line, then leave it together. */
	end = jiffies + 10 * HZ;
	while (atomic_read(&ready) < n && time_before(jiffies, end))
		msleep(20);
	complete_all(&start);

	/*
	 * One of them runs populate(), held until "go": every other one
	 * must then be asleep in its own lookup, waiting for that call.
	 */
	if (wait_for_completion_timeout(&t->d[0].started, 10 * HZ)) {
		populater = READ_ONCE(t->d[0].populater);
		end = jiffies + 10 * HZ;
		do {
			msleep(20);
			blocked = 0;
			for (i = 0; i < n; i++)
				blocked += th[i].task != populater &&
					   kernfs_lazy_test_blocked(&th[i]);
		} while (blocked < n - 1 && time_before(jiffies, end));
	}
	complete(&t->d[0].go);
	for (i = 0; i < n; i++) {
		wait_for_completion(&th[i].done);
		put_task_struct(th[i].task);
	}

	kunit_info(test, "%d of %d other first lookups waited for one populate()\n",
		   blocked, n - 1);
	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(th));
	KUNIT_EXPECT_EQ(test, blocked, n - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_NOT_NULL(test, th[i].found);
		KUNIT_EXPECT_PTR_EQ(test, th[i].found, th[0].found);
		kernfs_put(th[i].found);
	}
}

static void kernfs_lazy_test_failure_is_undone_and_retried(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;

	kernfs_lazy_test_mkdir(test, true);
	t->d[0].fail_with = -EIO;
	KUNIT_EXPECT_FALSE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&t->dir->dir.children));

	/* The next access calls populate() again; "a" would be -EEXIST. */
	t->d[0].fail_with = 0;
	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "b"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 2);
}

static void kernfs_lazy_test_removed_before_populate_is_enoent(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kstat st;
	struct path dir;
	int ret;

	kernfs_lazy_test_mkdir(test, true);
	kernfs_lazy_test_mount(test);
	/*
	 * A dentry of the directory, made before the removal: looking the
	 * directory itself up does not populate it.
	 */
	ret = vfs_path_lookup(t->mnt->mnt_root, t->mnt, "dir", 0, &dir);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 0);

	kernfs_get(t->dir);
	kernfs_remove(t->dir);
	/*
	 * getattr populates first, since a directory's nlink counts its
	 * subdirectories; without populate() it would succeed. Its error
	 * is the one that populating the removed directory gave.
	 */
	ret = vfs_getattr(&dir, &st, STATX_BASIC_STATS, AT_STATX_SYNC_AS_STAT);
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);
	KUNIT_EXPECT_FALSE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 0);
	path_put(&dir);
	kernfs_put(t->dir);
}

struct kernfs_lazy_test_remover {
	struct kernfs_node *kn;
	struct completion done;
};

static int kernfs_lazy_test_remove_fn(void *arg)
{
	struct kernfs_lazy_test_remover *r = arg;

	kernfs_remove(r->kn);
	complete(&r->done);
	return 0;
}

static void kernfs_lazy_test_removal_waits_for_populate(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_lazy_test_thread finder = { .t = t };
	struct kernfs_lazy_test_remover remover;
	struct task_struct *task;

	kernfs_lazy_test_mkdir(test, true);
	kernfs_get(t->dir);
	t->d[0].wait_for_go = true;
	init_completion(&finder.done);
	task = kthread_run(kernfs_lazy_test_finder, &finder, "kernfs_lazy_f");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&t->d[0].started);

	remover.kn = t->dir;
	init_completion(&remover.done);
	task = kthread_run(kernfs_lazy_test_remove_fn, &remover,
			   "kernfs_lazy_r");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* The populate callback holds an active reference: removal waits. */
	KUNIT_EXPECT_EQ(test,
			wait_for_completion_timeout(&remover.done,
						    msecs_to_jiffies(100)),
			0);

	complete(&t->d[0].go);
	wait_for_completion(&remover.done);
	wait_for_completion(&finder.done);
	/* Its children could not be added to a directory being removed. */
	KUNIT_EXPECT_NULL(test, finder.found);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&t->dir->dir.children));
	kernfs_put(finder.found);
	kernfs_put(t->dir);
}

static void kernfs_lazy_test_children_activated_with_directory(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *a;

	/* Not activated yet: only its creator reaches it, and may fill it. */
	kernfs_lazy_test_mkdir(test, false);
	a = kernfs_find_and_get(t->dir, "a");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_FALSE(test, a->flags & KERNFS_ACTIVATED);

	kernfs_activate(t->dir);
	KUNIT_EXPECT_TRUE(test, a->flags & KERNFS_ACTIVATED);
	kernfs_put(a);

	/* Populated after activation: kernfs activates the new children. */
	kernfs_remove(t->dir);
	kernfs_lazy_test_mkdir(test, true);
	a = kernfs_find_and_get(t->dir, "a");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_TRUE(test, a->flags & KERNFS_ACTIVATED);
	kernfs_put(a);
}

/*
 * A path through two lazy levels, looked up as user space does. The
 * suite is a module and kernfs_walk_and_get_ns() is not exported, so
 * the same path is taken through the VFS, whose lookup populates each
 * directory on its way.
 */
static void kernfs_lazy_test_lookup_populates_each_level(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct path b;
	int ret;

	t->d[0].lazy_child = true;
	kernfs_lazy_test_mkdir(test, true);
	kernfs_lazy_test_mount(test);
	ret = vfs_path_lookup(t->mnt->mnt_root, t->mnt, "dir/sub/b", 0, &b);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[1].calls), 1);
	KUNIT_EXPECT_STREQ(test, b.dentry->d_parent->d_name.name, "sub");
	path_put(&b);

	/* A lookup that fails in a populate() gets its error. */
	kernfs_remove(t->dir);
	t->d[1].fail_with = -ENOMEM;
	kernfs_lazy_test_mkdir(test, true);
	ret = vfs_path_lookup(t->mnt->mnt_root, t->mnt, "dir/sub/b", 0, &b);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[1].calls), 2);
	if (!ret)
		path_put(&b);
}

static void kernfs_lazy_test_namespaced_children(struct kunit *test)
{
	static const int tag[2];
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *kn;
	int i;

	t->d[0].ns[0] = &tag[0];
	t->d[0].ns[1] = &tag[1];
	kernfs_lazy_test_mkdir(test, false);
	kernfs_enable_ns(t->dir);
	kernfs_activate(t->dir);

	for (i = 0; i < ARRAY_SIZE(tag); i++) {
		kn = kernfs_find_and_get_ns(t->dir, "x", &tag[i]);
		KUNIT_ASSERT_NOT_NULL(test, kn);
		KUNIT_EXPECT_PTR_EQ(test, kn->ns, (const void *)&tag[i]);
		kernfs_put(kn);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
}

static void kernfs_lazy_test_children_get_unique_ids(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *a, *b;

	kernfs_lazy_test_mkdir(test, true);
	a = kernfs_find_and_get(t->dir, "a");
	b = kernfs_find_and_get(t->dir, "b");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_NE(test, kernfs_ino(a), kernfs_ino(b));
	KUNIT_EXPECT_NE(test, kernfs_ino(a), kernfs_ino(t->dir));
	KUNIT_EXPECT_NE(test, kernfs_ino(b), kernfs_ino(t->dir));
	kernfs_put(a);
	kernfs_put(b);
}

struct kernfs_lazy_test_other {
	struct kernfs_node *dir;
	struct kernfs_node *found;
	struct completion done;
};

static int kernfs_lazy_test_other_finder(void *arg)
{
	struct kernfs_lazy_test_other *o = arg;

	o->found = kernfs_find_and_get(o->dir, "a");
	complete(&o->done);
	return 0;
}

/*
 * Run @fn(@arg) in a thread while the populate() of @d is held. If the
 * thread cannot start, let that populate() go on, wait for @held, the
 * lookup that runs it, and fail the test.
 */
static bool kernfs_lazy_test_start(struct kunit *test, int (*fn)(void *),
				   void *arg, struct kernfs_lazy_test_dir *d,
				   struct completion *held)
{
	struct task_struct *task = kthread_run(fn, arg, "kernfs_lazy_t");

	if (!IS_ERR(task))
		return true;
	complete(&d->go);
	wait_for_completion(held);
	KUNIT_FAIL(test, "cannot start a thread: %ld", PTR_ERR(task));
	return false;
}

/*
 * lazy.rst: populations of different directories go on at once. While
 * populate() of "dir" is held, a first lookup in "other" gets its
 * children; it used to wait for "dir", as both were serialized by one
 * mutex per root.
 */
static void kernfs_lazy_test_unrelated_populates_run_at_once(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_lazy_test_thread held = { .t = t };
	struct kernfs_lazy_test_other other = { };
	struct task_struct *task;
	unsigned long left;

	kernfs_lazy_test_mkdir(test, true);
	other.dir = kernfs_create_lazy_dir_ns(kernfs_root_to_node(t->root),
					      "other", 0755, GLOBAL_ROOT_UID,
					      GLOBAL_ROOT_GID, &t->d[1], NULL,
					      0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(other.dir));
	kernfs_activate(other.dir);

	t->d[0].wait_for_go = true;
	init_completion(&held.done);
	task = kthread_run(kernfs_lazy_test_finder, &held, "kernfs_lazy_h");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&t->d[0].started);

	init_completion(&other.done);
	if (!kernfs_lazy_test_start(test, kernfs_lazy_test_other_finder,
				    &other, &t->d[0], &held.done))
		return;
	left = wait_for_completion_timeout(&other.done, 5 * HZ);

	complete(&t->d[0].go);
	wait_for_completion(&held.done);
	if (!left)	/* a completion counts: wait only if that wait failed */
		wait_for_completion(&other.done);
	KUNIT_EXPECT_NE_MSG(test, left, 0,
			    "the lookup in \"other\" waited for \"dir\"");
	KUNIT_EXPECT_NOT_NULL(test, other.found);
	KUNIT_EXPECT_NOT_NULL(test, held.found);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[1].calls), 1);
	kernfs_put(other.found);
	kernfs_put(held.found);
}

/*
 * lazy.rst: removing a directory waits for a populate() in flight below
 * it before it removes any node. The populate() of "dir/sub" has made
 * "a" and is held; kernfs_remove("dir") must leave "a" linked, and so
 * alive for populate(), until populate() ends. It used to drain and
 * unlink the leaves first, "a" among them.
 */
static void kernfs_lazy_test_removal_keeps_children_until_populate_ends(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_lazy_test_other sub = { };
	struct kernfs_lazy_test_remover remover;
	struct task_struct *task;
	unsigned long left;
	bool linked;

	t->d[0].lazy_child = true;
	kernfs_lazy_test_mkdir(test, true);
	sub.dir = kernfs_find_and_get(t->dir, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub.dir);

	t->d[1].wait_after_a = true;
	init_completion(&sub.done);
	task = kthread_run(kernfs_lazy_test_other_finder, &sub,
			   "kernfs_lazy_s");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&t->d[1].made_a);

	kernfs_get(t->dir);
	remover.kn = t->dir;
	init_completion(&remover.done);
	if (!kernfs_lazy_test_start(test, kernfs_lazy_test_remove_fn,
				    &remover, &t->d[1], &sub.done))
		return;
	left = wait_for_completion_timeout(&remover.done,
					   msecs_to_jiffies(100));
	linked = !RB_EMPTY_NODE(&t->d[1].a->rb);

	complete(&t->d[1].go);
	if (!left)	/* a completion counts: wait only if that wait failed */
		wait_for_completion(&remover.done);
	wait_for_completion(&sub.done);
	KUNIT_EXPECT_EQ_MSG(test, left, 0,
			    "the removal did not wait for populate()");
	KUNIT_EXPECT_TRUE_MSG(test, linked,
			      "the removal unlinked \"a\" while populate() ran");
	/* The rest of the population failed in a directory being removed. */
	KUNIT_EXPECT_NULL(test, sub.found);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&t->d[1].a->rb));
	kernfs_put(sub.found);
	kernfs_put(t->d[1].a);
	kernfs_put(sub.dir);
	kernfs_put(t->dir);
}

/*
 * lazy.rst: lockdep sees populate() run under the directory's active
 * reference, so that it checks the lock order around it.
 */
static void kernfs_lazy_test_populate_active_ref_seen_by_lockdep(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		kunit_skip(test, "no lockdep in this kernel");
	kernfs_lazy_test_mkdir(test, true);
	KUNIT_ASSERT_TRUE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(t->d[0].lockdep_held));
}

/* The inode number of dir/@name, or 0 if it has none. */
static u64 kernfs_lazy_test_ino(struct kernfs_lazy_test *t, const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(t->dir, name);
	u64 ino = kn ? kernfs_ino(kn) : 0;

	kernfs_put(kn);
	return ino;
}

/* Let populate() run without its usual wait for first accesses. */
static void kernfs_lazy_test_no_wait(struct kernfs_lazy_test_dir *d)
{
	d->wait_for_go = true;
	complete_all(&d->go);
}

/*
 * lazy.rst: kernfs_depopulate() frees the children nothing uses, and the
 * next search populates the directory again.
 */
static void kernfs_lazy_test_depopulate_then_populate_again(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;

	kernfs_lazy_test_no_wait(&t->d[0]);
	kernfs_lazy_test_mkdir(test, true);
	/* Nothing to give back before the first population. */
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(t->dir), -EBUSY);
	KUNIT_ASSERT_TRUE(test, kernfs_lazy_test_has(t, "a"));

	KUNIT_EXPECT_EQ(test, kernfs_depopulate(t->dir), 0);
	KUNIT_EXPECT_TRUE(test, t->dir->flags & KERNFS_UNPOPULATED);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&t->dir->dir.children));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->dir->count), 1);

	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "b"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 2);
}

/*
 * lazy.rst: a child with a reference, or a subdirectory with children,
 * keeps the directory populated; the subdirectory goes first.
 */
static void kernfs_lazy_test_depopulate_refused_while_used(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *a, *sub, *sub_a;

	kernfs_lazy_test_no_wait(&t->d[0]);
	kernfs_lazy_test_no_wait(&t->d[1]);
	t->d[0].lazy_child = true;
	kernfs_lazy_test_mkdir(test, true);
	a = kernfs_find_and_get(t->dir, "a");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(t->dir), -EBUSY);
	kernfs_put(a);

	sub = kernfs_find_and_get(t->dir, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	sub_a = kernfs_find_and_get(sub, "a");
	KUNIT_ASSERT_NOT_NULL(test, sub_a);
	kernfs_put(sub_a);
	kernfs_put(sub);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(t->dir), -EBUSY);
	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "b"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 1);

	sub = kernfs_find_and_get(t->dir, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	kernfs_put(sub);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(sub), 0);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(t->dir), 0);
	KUNIT_EXPECT_TRUE(test, kernfs_lazy_test_has(t, "a"));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->d[0].calls), 2);
}

/*
 * lazy.rst: kernfs_depopulate() refuses, with -EINVAL and one warning, a
 * node that is not a directory, the top of a root, and a directory of a
 * root without populate(), as sysfs's and cgroupfs's are, and leaves
 * them as they were. tools/vm-run fails the boot unless exactly that warning appears
 * between the two "kfe-expect-warning" lines.
 */
static void kernfs_lazy_test_depopulate_refuses_what_is_not_lazy(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *top = kernfs_root_to_node(t->root);
	struct kernfs_node *a, *plain_dir, *plain_file, *found;
	struct kernfs_root *plain;

	plain = kernfs_create_root(NULL, 0, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain));
	plain_dir = kernfs_create_dir(kernfs_root_to_node(plain), "d", 0755,
				      NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain_dir));
	plain_file = kernfs_lazy_test_file(plain_dir, "f", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain_file));
	kernfs_lazy_test_no_wait(&t->d[0]);
	kernfs_lazy_test_mkdir(test, true);

	/* the top's only child is unpopulated, so nothing else refuses */
	pr_info("kfe-expect-warning: kernfs_depopulate\n");
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(plain_dir), -EINVAL);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(top), -EINVAL);
	found = kernfs_find_and_get(top, "dir");
	KUNIT_ASSERT_PTR_EQ(test, found, t->dir);
	kernfs_put(found);
	a = kernfs_find_and_get(t->dir, "a");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, kernfs_depopulate(a), -EINVAL);
	pr_info("kfe-expect-warning: end\n");

	found = kernfs_find_and_get(plain_dir, "f");
	KUNIT_EXPECT_PTR_EQ(test, found, plain_file);
	kernfs_put(found);
	KUNIT_EXPECT_FALSE(test, plain_dir->flags & KERNFS_UNPOPULATED);
	KUNIT_EXPECT_FALSE(test, top->flags & KERNFS_UNPOPULATED);
	KUNIT_EXPECT_FALSE(test, a->flags & KERNFS_UNPOPULATED);
	kernfs_put(a);
	kernfs_destroy_root(plain);
}

/*
 * lazy.rst: a directory given a block of the owner's numbers keeps its
 * files' numbers across depopulation: they follow its own, in the order
 * populate() creates them. A subdirectory made without a number takes
 * none of the block (a removed one could still hold it): kernfs numbers
 * it, and the children of a lazy directory without a block.
 */
static void kernfs_lazy_test_repopulated_children_keep_numbers(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	u32 ino = KERNFS_LAZY_INO_MIN + 5 * KERNFS_LAZY_INO_BLOCK;
	struct kernfs_node *sub;
	u64 a, b;

	kernfs_lazy_test_no_wait(&t->d[0]);
	t->d[0].lazy_child = true;
	kernfs_lazy_test_mkdir_ino(test, true, ino);
	KUNIT_EXPECT_EQ(test, (u32)kernfs_ino(t->dir), ino);
	a = kernfs_lazy_test_ino(t, "a");
	b = kernfs_lazy_test_ino(t, "b");
	KUNIT_EXPECT_EQ(test, (u32)a, ino + 1);
	KUNIT_EXPECT_EQ(test, (u32)b, ino + 2);
	KUNIT_EXPECT_LT(test, (u32)kernfs_lazy_test_ino(t, "sub"),
			KERNFS_LAZY_INO_MIN);

	KUNIT_ASSERT_EQ(test, kernfs_depopulate(t->dir), 0);
	KUNIT_EXPECT_EQ(test, kernfs_lazy_test_ino(t, "a"), a);
	KUNIT_EXPECT_EQ(test, kernfs_lazy_test_ino(t, "b"), b);

	/* "sub" has no block: its children's numbers come from kernfs. */
	kernfs_lazy_test_no_wait(&t->d[1]);
	sub = kernfs_find_and_get(t->dir, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	t->dir = sub;
	KUNIT_EXPECT_LT(test, (u32)kernfs_lazy_test_ino(t, "a"),
			KERNFS_LAZY_INO_MIN);
	kernfs_put(sub);
}

/* lazy.rst: a number that is not a block's first, or is taken, fails. */
static void kernfs_lazy_test_bad_or_taken_number_refused(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *top = kernfs_root_to_node(t->root);
	u32 ino = KERNFS_LAZY_INO_MIN + KERNFS_LAZY_INO_BLOCK;
	struct kernfs_node *kn;

	kn = kernfs_create_lazy_dir_ns(top, "x", 0755, GLOBAL_ROOT_UID,
				       GLOBAL_ROOT_GID, NULL, NULL, ino + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kn), -EINVAL);
	kn = kernfs_create_lazy_dir_ns(top, "x", 0755, GLOBAL_ROOT_UID,
				       GLOBAL_ROOT_GID, NULL, NULL,
				       KERNFS_LAZY_INO_BLOCK);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kn), -EINVAL);

	kernfs_lazy_test_mkdir_ino(test, true, ino);
	kn = kernfs_create_lazy_dir_ns(top, "x", 0755, GLOBAL_ROOT_UID,
				       GLOBAL_ROOT_GID, NULL, NULL, ino);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kn), -EBUSY);
	kn = kernfs_find_and_get(top, "x");
	KUNIT_EXPECT_NULL(test, kn);
	kernfs_put(kn);
}

/*
 * lazy.rst: the number of a removed directory stays taken while the
 * removed node is held (the inode cache finds inodes by number), and is
 * free once the node is freed.
 */
static void kernfs_lazy_test_removed_number_taken_until_freed(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_node *top = kernfs_root_to_node(t->root);
	u32 ino = KERNFS_LAZY_INO_MIN + 2 * KERNFS_LAZY_INO_BLOCK;
	struct kernfs_node *old, *kn;

	kernfs_lazy_test_mkdir_ino(test, true, ino);
	old = t->dir;
	kernfs_get(old);		/* as an open file holds it */
	kernfs_remove(old);
	kn = kernfs_create_lazy_dir_ns(top, "dir", 0755, GLOBAL_ROOT_UID,
				       GLOBAL_ROOT_GID, NULL, NULL, ino);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kn), -EBUSY);

	kernfs_put(old);
	kernfs_lazy_test_mkdir_ino(test, true, ino);
	KUNIT_EXPECT_EQ(test, (u32)kernfs_ino(t->dir), ino);
}

#define KERNFS_LAZY_TEST_DEPOPULATIONS	100

struct kernfs_lazy_test_searcher {
	struct kernfs_node *dir;
	bool stop;
	int searches;
	int misses;
	struct completion done;
};

static int kernfs_lazy_test_searcher_fn(void *arg)
{
	struct kernfs_lazy_test_searcher *s = arg;
	struct kernfs_node *kn;

	while (!READ_ONCE(s->stop)) {
		kn = kernfs_find_and_get(s->dir, "a");
		s->misses += !kn;
		s->searches++;
		kernfs_put(kn);
		/*
		 * A pause now and then: a search holds "a" or the lock,
		 * and a depopulation then fails, so without one it can
		 * fail for a million tries on an emulated CPU.
		 */
		if (!(s->searches % 16))
			usleep_range(20, 40);
		cond_resched();
	}
	complete(&s->done);
	return 0;
}

/*
 * lazy.rst: a search never misses a child because kernfs_depopulate()
 * ran between its population and its lock. Searches run until 100
 * depopulations have succeeded beside them, or a million were tried.
 */
static void kernfs_lazy_test_search_never_misses_depopulated(struct kunit *test)
{
	struct kernfs_lazy_test *t = test->priv;
	struct kernfs_lazy_test_searcher s = { };
	struct task_struct *task;
	int depopulated = 0, tries;

	kernfs_lazy_test_no_wait(&t->d[0]);
	kernfs_lazy_test_mkdir(test, true);
	s.dir = t->dir;
	init_completion(&s.done);
	task = kthread_run(kernfs_lazy_test_searcher_fn, &s, "kernfs_lazy_s");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	for (tries = 0; depopulated < KERNFS_LAZY_TEST_DEPOPULATIONS &&
	     tries < 1000000; tries++) {
		if (!kernfs_depopulate(t->dir)) {
			depopulated++;
		} else if (!(tries % 16)) {
			/*
			 * Refused while a search holds the child: a pause
			 * now and then lets the searcher finish it, or on an
			 * emulated CPU shared with another guest the million
			 * tries ended with 99 depopulations in a make check.
			 */
			usleep_range(20, 40);
		}
		cond_resched();
	}
	WRITE_ONCE(s.stop, true);
	wait_for_completion(&s.done);
	kunit_info(test, "%d searches, %d of %d depopulations, %d populations\n",
		   s.searches, depopulated, tries, atomic_read(&t->d[0].calls));
	KUNIT_EXPECT_EQ(test, s.misses, 0);
	KUNIT_EXPECT_EQ(test, depopulated, KERNFS_LAZY_TEST_DEPOPULATIONS);
}

static struct kunit_case kernfs_lazy_test_cases[] = {
	KUNIT_CASE(kernfs_lazy_test_populated_once_on_first_search),
	KUNIT_CASE(kernfs_lazy_test_concurrent_first_lookups_share_one_populate),
	KUNIT_CASE(kernfs_lazy_test_failure_is_undone_and_retried),
	KUNIT_CASE(kernfs_lazy_test_removed_before_populate_is_enoent),
	KUNIT_CASE(kernfs_lazy_test_removal_waits_for_populate),
	KUNIT_CASE(kernfs_lazy_test_children_activated_with_directory),
	KUNIT_CASE(kernfs_lazy_test_lookup_populates_each_level),
	KUNIT_CASE(kernfs_lazy_test_namespaced_children),
	KUNIT_CASE(kernfs_lazy_test_children_get_unique_ids),
	KUNIT_CASE(kernfs_lazy_test_unrelated_populates_run_at_once),
	KUNIT_CASE(kernfs_lazy_test_populate_active_ref_seen_by_lockdep),
	KUNIT_CASE(kernfs_lazy_test_removal_keeps_children_until_populate_ends),
	KUNIT_CASE(kernfs_lazy_test_depopulate_then_populate_again),
	KUNIT_CASE(kernfs_lazy_test_depopulate_refused_while_used),
	KUNIT_CASE(kernfs_lazy_test_depopulate_refuses_what_is_not_lazy),
	KUNIT_CASE(kernfs_lazy_test_repopulated_children_keep_numbers),
	KUNIT_CASE(kernfs_lazy_test_bad_or_taken_number_refused),
	KUNIT_CASE(kernfs_lazy_test_removed_number_taken_until_freed),
	KUNIT_CASE(kernfs_lazy_test_search_never_misses_depopulated),
	{}
};

static struct kunit_suite kernfs_lazy_test_suite = {
	.name = "kernfs_lazy",
	.init = kernfs_lazy_test_init,
	.exit = kernfs_lazy_test_exit,
	.test_cases = kernfs_lazy_test_cases,
};

kunit_test_suite(kernfs_lazy_test_suite);

MODULE_DESCRIPTION("KUnit tests for lazily populated kernfs directories");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
