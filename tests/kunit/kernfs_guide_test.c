// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite behind claims of the kernfs guide (Documentation/): one
 * case per claim, named so that the page making the claim can cite it.
 * Each case builds a kernfs root of its own, mounts it through a
 * filesystem type of this module, and looks at it as user space would.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/exportfs.h>
#include <linux/fdtable.h>
#include <linux/fs_context.h>
#include <linux/kallsyms.h>
#include <linux/kernfs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xattr.h>

#define KERNFS_GUIDE_TEST_MAGIC		0x6b677421
#define KERNFS_GUIDE_TEST_NFILES	8

/* What the callbacks saw; reset by each case's init. */
struct kernfs_guide_test_seen {
	int show_active;		/* kn->active inside seq_show */
	int release_active;		/* kn->active inside release */
	int releases;
	int show_options_active;	/* the root node's, in show_options */
	int show_path_active;
	int populate_active;		/* kn->active inside populate */
	int populate_calls;
	int vma_open;			/* calls of our vm_ops methods */
	int vma_fault;
	int vma_page_mkwrite;
	int vma_access;
	int mmap_calls;
	int mkdir_calls;		/* and what each of these saw */
	int mkdir_active;		/* the parent's kn->active */
	bool mkdir_locked;		/* the parent's inode locked */
	int mkdir_path_len;		/* kernfs_path() of the parent */
	int rmdir_calls;
	bool rmdir_locked;		/* the parent's and the victim's */
	int rename_calls;
	bool rename_locked;		/* both parents' inodes */
	bool rename_mutex_locked;	/* the sb's s_vfs_rename_mutex */
	size_t read_count;		/* what ->read was asked for */
	bool read_into_prealloc;	/* ... into of->prealloc_buf */
};

static struct kernfs_guide_test_seen kernfs_guide_test_seen;

/* The root the next mount serves: set by each case's init. */
static struct kernfs_root *kernfs_guide_test_root;

static int kernfs_guide_test_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	kernfs_guide_test_seen.show_active = atomic_read(&of->kn->active);
	seq_puts(sf, "x\n");
	return 0;
}

static void kernfs_guide_test_release(struct kernfs_open_file *of)
{
	kernfs_guide_test_seen.release_active = atomic_read(&of->kn->active);
	kernfs_guide_test_seen.releases++;
}

static const struct kernfs_ops kernfs_guide_test_show_ops = {
	.seq_show	= kernfs_guide_test_seq_show,
};

static const struct kernfs_ops kernfs_guide_test_release_ops = {
	.seq_show	= kernfs_guide_test_seq_show,
	.release	= kernfs_guide_test_release,
};

/* The page that the mappable file's fault hands out: set by its case. */
static struct page *kernfs_guide_test_page;

static void kernfs_guide_test_vma_open(struct vm_area_struct *vma)
{
	kernfs_guide_test_seen.vma_open++;
}

static vm_fault_t kernfs_guide_test_vma_fault(struct vm_fault *vmf)
{
	kernfs_guide_test_seen.vma_fault++;
	get_page(kernfs_guide_test_page);
	vmf->page = kernfs_guide_test_page;
	return 0;
}

static vm_fault_t kernfs_guide_test_vma_page_mkwrite(struct vm_fault *vmf)
{
	kernfs_guide_test_seen.vma_page_mkwrite++;
	return 0;
}

static int kernfs_guide_test_vma_access(struct vm_area_struct *vma,
					unsigned long addr, void *buf, int len,
					int write)
{
	kernfs_guide_test_seen.vma_access++;
	return len;
}

static const struct vm_operations_struct kernfs_guide_test_vm_ops = {
	.open		= kernfs_guide_test_vma_open,
	.fault		= kernfs_guide_test_vma_fault,
	.page_mkwrite	= kernfs_guide_test_vma_page_mkwrite,
	.access		= kernfs_guide_test_vma_access,
};

/* A second set, and a third with a close method, which kernfs refuses. */
static const struct vm_operations_struct kernfs_guide_test_vm_ops_b = {
	.fault		= kernfs_guide_test_vma_fault,
};

static void kernfs_guide_test_vma_close(struct vm_area_struct *vma)
{
}

static const struct vm_operations_struct kernfs_guide_test_vm_ops_close = {
	.fault		= kernfs_guide_test_vma_fault,
	.close		= kernfs_guide_test_vma_close,
};

/* The page offset of the mapping chooses the vm_ops: 0, 1 or 2 above. */
static int kernfs_guide_test_mmap(struct kernfs_open_file *of,
				  struct vm_area_struct *vma)
{
	static const struct vm_operations_struct *const vm_ops[] = {
		&kernfs_guide_test_vm_ops,
		&kernfs_guide_test_vm_ops_b,
		&kernfs_guide_test_vm_ops_close,
	};

	kernfs_guide_test_seen.mmap_calls++;
	if (vma->vm_pgoff >= ARRAY_SIZE(vm_ops))
		return -EINVAL;
	vma->vm_ops = vm_ops[vma->vm_pgoff];
	return 0;
}

static const struct kernfs_ops kernfs_guide_test_mmap_ops = {
	.mmap		= kernfs_guide_test_mmap,
};

/* Records what it is asked for; stores nothing. */
static ssize_t kernfs_guide_test_read_op(struct kernfs_open_file *of,
					 char *buf, size_t bytes, loff_t off)
{
	kernfs_guide_test_seen.read_count = bytes;
	kernfs_guide_test_seen.read_into_prealloc = buf == of->prealloc_buf;
	return 0;
}

static ssize_t kernfs_guide_test_write_op(struct kernfs_open_file *of,
					  char *buf, size_t bytes, loff_t off)
{
	return bytes;
}

static const struct kernfs_ops kernfs_guide_test_prealloc_ops = {
	.read			= kernfs_guide_test_read_op,
	.write			= kernfs_guide_test_write_op,
	.atomic_write_len	= 16,
	.prealloc		= true,
};

static int kernfs_guide_test_show_options(struct seq_file *sf,
					  struct kernfs_root *root)
{
	struct kernfs_node *kn = kernfs_root_to_node(root);

	kernfs_guide_test_seen.show_options_active = atomic_read(&kn->active);
	return 0;
}

static int kernfs_guide_test_show_path(struct seq_file *sf,
				       struct kernfs_node *kn,
				       struct kernfs_root *root)
{
	kernfs_guide_test_seen.show_path_active = atomic_read(&kn->active);
	return 0;
}

/* A lazy directory's priv: its populate() creates "a", then fails. */
static int kernfs_guide_test_populate(struct kernfs_node *kn)
{
	const int *fail_with = kn->priv;
	struct kernfs_node *child;

	kernfs_guide_test_seen.populate_active = atomic_read(&kn->active);
	kernfs_guide_test_seen.populate_calls++;
	child = __kernfs_create_file(kn, "a", S_IFREG | 0444,
				     GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
				     &kernfs_guide_test_show_ops, NULL, NULL,
				     NULL);
	if (IS_ERR(child))
		return PTR_ERR(child);
	return *fail_with;
}

static struct kernfs_syscall_ops kernfs_guide_test_scops = {
	.show_options	= kernfs_guide_test_show_options,
	.show_path	= kernfs_guide_test_show_path,
	.populate	= kernfs_guide_test_populate,
};

/*
 * The superblock that the directory methods below look at: they check
 * that the VFS locked the inodes of the nodes they are given.
 */
static struct super_block *kernfs_guide_test_sb;

static bool kernfs_guide_test_inode_locked(struct kernfs_node *kn)
{
	struct inode *inode = ilookup(kernfs_guide_test_sb, kernfs_ino(kn));
	bool locked = inode && inode_is_locked(inode);

	iput(inode);
	return locked;
}

/* kernfs_rename_ns(), which is not exported: see kernfs_guide_test_symbol(). */
static int (*kernfs_guide_test_rename_ns)(struct kernfs_node *kn,
					  struct kernfs_node *new_parent,
					  const char *new_name,
					  const void *new_ns);

static int kernfs_guide_test_mkdir_op(struct kernfs_node *parent,
				      const char *name, umode_t mode)
{
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;
	struct kernfs_node *kn;
	char buf[16];

	seen->mkdir_calls++;
	seen->mkdir_active = atomic_read(&parent->active);
	seen->mkdir_locked = kernfs_guide_test_inode_locked(parent);
	/* kernfs_path() takes kernfs_rename_lock: not held either. */
	seen->mkdir_path_len = kernfs_path(parent, buf, sizeof(buf));
	/* Creating a node takes kernfs_rwsem: the method does not hold it. */
	kn = kernfs_create_dir_ns(parent, name, mode, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, NULL, NULL);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kernfs_activate(kn);
	return 0;
}

static int kernfs_guide_test_rmdir_op(struct kernfs_node *kn)
{
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;

	seen->rmdir_calls++;
	seen->rmdir_locked = kernfs_guide_test_inode_locked(kn->parent) &&
			     kernfs_guide_test_inode_locked(kn);
	kernfs_break_active_protection(kn);
	kernfs_remove(kn);
	kernfs_unbreak_active_protection(kn);
	return 0;
}

static int kernfs_guide_test_rename_op(struct kernfs_node *kn,
				       struct kernfs_node *new_parent,
				       const char *new_name)
{
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;

	seen->rename_calls++;
	seen->rename_locked = kernfs_guide_test_inode_locked(kn->parent) &&
			      kernfs_guide_test_inode_locked(new_parent);
	seen->rename_mutex_locked =
		mutex_is_locked(&kernfs_guide_test_sb->s_vfs_rename_mutex);
	return kernfs_guide_test_rename_ns(kn, new_parent, new_name, NULL);
}

/* A second root's: mkdir(2), rmdir(2) and rename(2) reach these. */
static struct kernfs_syscall_ops kernfs_guide_test_dir_scops = {
	.mkdir		= kernfs_guide_test_mkdir_op,
	.rmdir		= kernfs_guide_test_rmdir_op,
	.rename		= kernfs_guide_test_rename_op,
};

static void kernfs_guide_test_fc_free(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(kfc);
}

static const struct fs_context_operations kernfs_guide_test_fc_ops = {
	.get_tree	= kernfs_get_tree,
	.free		= kernfs_guide_test_fc_free,
};

static int kernfs_guide_test_init_fs_context(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc;

	kfc = kzalloc(sizeof(*kfc), GFP_KERNEL);
	if (!kfc)
		return -ENOMEM;
	kfc->root = kernfs_guide_test_root;
	kfc->magic = KERNFS_GUIDE_TEST_MAGIC;
	fc->fs_private = kfc;
	fc->ops = &kernfs_guide_test_fc_ops;
	fc->global = true;
	return 0;
}

static struct file_system_type kernfs_guide_test_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "kernfs_guide_test",
	.init_fs_context	= kernfs_guide_test_init_fs_context,
	.kill_sb		= kernfs_kill_sb,
};

struct kernfs_guide_test {
	struct kernfs_root *root;
	struct kernfs_node *top;
	struct kernfs_root *root2;	/* a second root, if the case made one */
	struct vfsmount *mnt[3];
	int nr_mnt;
};

/*
 * Mount the case's root with namespace tag @ns. An internal mount, so
 * that kern_unmount() in exit tears it down before the root goes.
 */
static struct vfsmount *kernfs_guide_test_mount(struct kunit *test,
						const void *ns)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_fs_context *kfc;
	struct fs_context *fc;
	struct vfsmount *mnt;

	fc = fs_context_for_mount(&kernfs_guide_test_fs_type, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fc));
	kfc = fc->fs_private;
	kfc->ns_tag = (void *)ns;
	fc->sb_flags |= SB_KERNMOUNT;
	mnt = fc_mount(fc);
	put_fs_context(fc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	t->mnt[t->nr_mnt++] = mnt;
	return mnt;
}

static struct kernfs_node *kernfs_guide_test_file(struct kunit *test,
						  struct kernfs_node *parent,
						  const char *name,
						  const struct kernfs_ops *ops)
{
	struct kernfs_node *kn;

	kn = __kernfs_create_file(parent, name, S_IFREG | 0444,
				  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0, ops,
				  NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));
	return kn;
}

/*
 * A file "plain" (seq_show only) in the case's activated root, mounted:
 * its node, and its path in @path, which the caller puts.
 */
static struct kernfs_node *kernfs_guide_test_plain(struct kunit *test,
						   struct path *path)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *kn;
	struct vfsmount *mnt;

	kn = kernfs_guide_test_file(test, t->top, "plain",
				    &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	KUNIT_ASSERT_EQ(test, vfs_path_lookup(mnt->mnt_root, mnt, "plain", 0,
					      path), 0);
	return kn;
}

static struct kernfs_node *kernfs_guide_test_dir(struct kunit *test,
						 struct kernfs_node *parent,
						 const char *name)
{
	struct kernfs_node *kn;

	kn = kernfs_create_dir_ns(parent, name, 0755, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));
	return kn;
}

static struct file *kernfs_guide_test_open(struct kunit *test,
					   struct vfsmount *mnt,
					   const char *path, int flags)
{
	struct file *file = file_open_root_mnt(mnt, path, flags, 0);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	return file;
}

/* read() from offset 0 into a scratch buffer. */
static ssize_t kernfs_guide_test_read(struct file *file)
{
	char buf[16];
	loff_t pos = 0;

	return kernel_read(file, buf, sizeof(buf), &pos);
}

static int kernfs_guide_test_init(struct kunit *test)
{
	struct kernfs_guide_test *t;

	memset(&kernfs_guide_test_seen, 0, sizeof(kernfs_guide_test_seen));
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->root = kernfs_create_root(&kernfs_guide_test_scops,
				     KERNFS_ROOT_CREATE_DEACTIVATED, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->root));
	t->top = kernfs_root_to_node(t->root);
	kernfs_activate(t->top);
	kernfs_guide_test_root = t->root;
	test->priv = t;
	return 0;
}

static void kernfs_guide_test_exit(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;

	while (t->nr_mnt)
		kern_unmount(t->mnt[--t->nr_mnt]);
	if (t->root2)
		kernfs_destroy_root(t->root2);
	kernfs_destroy_root(t->root);
}

/*
 * Make the case's second root, with @scops and @flags, activated, and
 * let the next mounts serve it; return its root node.
 */
static struct kernfs_node *kernfs_guide_test_root2(struct kunit *test,
						   struct kernfs_syscall_ops *scops,
						   unsigned int flags)
{
	struct kernfs_guide_test *t = test->priv;

	t->root2 = kernfs_create_root(scops, flags, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->root2));
	kernfs_activate(kernfs_root_to_node(t->root2));
	kernfs_guide_test_root = t->root2;
	return kernfs_root_to_node(t->root2);
}

/*
 * The address of a kernel function that is not exported, found as a
 * kprobe finds it. Only the cases that show what a system call does
 * before kernfs sees it, and what built-in callers of kernfs get, use
 * it: a module that uses kernfs must not.
 */
static void *kernfs_guide_test_symbol(struct kunit *test, const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	char sym[KSYM_SYMBOL_LEN], want[KSYM_NAME_LEN + 8];
	void *addr;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	addr = kp.addr;
	unregister_kprobe(&kp);
	/* The start of the function itself, not a point inside it. */
	sprint_symbol(sym, (unsigned long)addr);
	snprintf(want, sizeof(want), "%s+0x0/", name);
	KUNIT_ASSERT_TRUE_MSG(test, str_has_prefix(sym, want), "%s", sym);
	return addr;
}

/* An fd of @mnt's root, in this thread's table, for the *at() calls. */
static int kernfs_guide_test_root_fd(struct kunit *test, struct vfsmount *mnt)
{
	struct file *file;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	KUNIT_ASSERT_GE(test, fd, 0);
	file = file_open_root_mnt(mnt, ".", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(file))
		put_unused_fd(fd);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	fd_install(fd, file);
	return fd;
}

/* activation.rst: an open file of a seq_show-only file revives. */
static void kernfs_guide_test_open_file_works_again_after_show(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *kn;
	struct vfsmount *mnt;
	struct file *file;

	kn = kernfs_guide_test_file(test, t->top, "plain",
				    &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	file = kernfs_guide_test_open(test, mnt, "plain", O_RDONLY);

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	kernfs_show(kn, false);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), -ENODEV);
	kernfs_show(kn, true);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	__fput_sync(file);
}

/* activation.rst: ... but one that kernfs released stays dead. */
static void kernfs_guide_test_released_file_stays_dead_after_show(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *kn;
	struct vfsmount *mnt;
	struct file *file;

	kn = kernfs_guide_test_file(test, t->top, "rel",
				    &kernfs_guide_test_release_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	file = kernfs_guide_test_open(test, mnt, "rel", O_RDONLY);

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	kernfs_show(kn, false);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.releases, 1);
	kernfs_show(kn, true);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), -ENODEV);
	__fput_sync(file);
	/* Released once: not again at close. */
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.releases, 1);

	/* A new open of the shown file works. */
	file = kernfs_guide_test_open(test, mnt, "rel", O_RDONLY);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	__fput_sync(file);
}

/*
 * A readdir that stops after @stop_after entries (-1: never), and
 * removes the entry it has just emitted as number @remove_at (-1: none).
 */
struct kernfs_guide_test_lister {
	struct dir_context ctx;
	struct kernfs_node *dir;
	int stop_after;
	int remove_at;
	int n;
	char refused[8];
	char names[2 * KERNFS_GUIDE_TEST_NFILES][8];
};

static bool kernfs_guide_test_list_one(struct dir_context *ctx,
				       const char *name, int len, loff_t pos,
				       u64 ino, unsigned int type)
{
	struct kernfs_guide_test_lister *l =
		container_of(ctx, struct kernfs_guide_test_lister, ctx);
	struct kernfs_node *kn;

	if (name[0] == '.')
		return true;
	if (l->n == l->stop_after) {
		strscpy(l->refused, name, sizeof(l->refused));
		return false;
	}
	if (l->n >= ARRAY_SIZE(l->names))
		return false;
	strscpy(l->names[l->n], name, sizeof(l->names[0]));
	if (l->n++ == l->remove_at) {
		/* kernfs dropped its lock around dir_emit(): remove it now. */
		kn = kernfs_find_and_get(l->dir, l->names[l->n - 1]);
		kernfs_remove(kn);
		kernfs_put(kn);
	}
	return true;
}

static void kernfs_guide_test_list(struct file *file,
				   struct kernfs_guide_test_lister *l)
{
	l->ctx.actor = kernfs_guide_test_list_one;
	iterate_dir(file, &l->ctx);
}

/* Make dir @name with files f0..f7; return it. */
static struct kernfs_node *kernfs_guide_test_files(struct kunit *test,
						   const char *name)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *dir;
	char file[8];
	int i;

	dir = kernfs_guide_test_dir(test, t->top, name);
	for (i = 0; i < KERNFS_GUIDE_TEST_NFILES; i++) {
		snprintf(file, sizeof(file), "f%d", i);
		kernfs_guide_test_file(test, dir, file,
				       &kernfs_guide_test_show_ops);
	}
	kernfs_activate(dir);
	return dir;
}

static int kernfs_guide_test_count(struct kernfs_guide_test_lister *l,
				   const char *name)
{
	int i, c = 0;

	for (i = 0; i < l->n; i++)
		c += !strcmp(l->names[i], name);
	return c;
}

/*
 * concepts.rst: a readdir resumed after its position was removed
 * restarts by hash at a neighbour, and can list an entry twice.
 */
static void kernfs_guide_test_readdir_repeats_entry_when_position_removed(struct kunit *test)
{
	struct kernfs_guide_test_lister *l;
	struct vfsmount *mnt;
	struct file *file;
	int k, i, repeats = 0;
	char name[8];

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	mnt = kernfs_guide_test_mount(test, NULL);
	for (k = 0; k < KERNFS_GUIDE_TEST_NFILES; k++) {
		snprintf(name, sizeof(name), "d%d", k);
		memset(l, 0, sizeof(*l));
		l->dir = kernfs_guide_test_files(test, name);
		file = kernfs_guide_test_open(test, mnt, name,
					      O_RDONLY | O_DIRECTORY);
		/* Stop before entry k: kernfs pins it as the position. */
		l->stop_after = k;
		l->remove_at = -1;
		kernfs_guide_test_list(file, l);
		KUNIT_ASSERT_EQ(test, l->n, k);
		kernfs_remove_by_name(l->dir, l->refused);
		l->stop_after = -1;
		kernfs_guide_test_list(file, l);
		__fput_sync(file);

		for (i = 0; i < l->n; i++)
			if (kernfs_guide_test_count(l, l->names[i]) > 1)
				break;
		repeats += i < l->n;
		kernfs_remove(l->dir);
	}
	kunit_info(test, "%d of %d resumed listings repeated an entry\n",
		   repeats, KERNFS_GUIDE_TEST_NFILES);
	KUNIT_EXPECT_GT(test, repeats, 0);
}

/*
 * concepts.rst: an entry removed while readdir emits it (kernfs has
 * dropped its lock) can make the same call skip the next entry.
 */
static void kernfs_guide_test_readdir_skips_entry_when_emitted_one_removed(struct kunit *test)
{
	struct kernfs_guide_test_lister *l;
	struct vfsmount *mnt;
	struct file *file;
	int k, skips = 0;
	char name[8];

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	mnt = kernfs_guide_test_mount(test, NULL);
	for (k = 0; k < KERNFS_GUIDE_TEST_NFILES; k++) {
		snprintf(name, sizeof(name), "d%d", k);
		memset(l, 0, sizeof(*l));
		l->dir = kernfs_guide_test_files(test, name);
		file = kernfs_guide_test_open(test, mnt, name,
					      O_RDONLY | O_DIRECTORY);
		l->stop_after = -1;
		l->remove_at = k;
		kernfs_guide_test_list(file, l);
		__fput_sync(file);
		/* All were there when the listing began: one was skipped? */
		skips += l->n < KERNFS_GUIDE_TEST_NFILES;
		kernfs_remove(l->dir);
	}
	kunit_info(test, "%d of %d listings skipped a surviving entry\n",
		   skips, KERNFS_GUIDE_TEST_NFILES);
	KUNIT_EXPECT_GT(test, skips, 0);
}

/*
 * concepts.rst, reference/roots.rst: release, show_options, show_path
 * and the populate of a never-activated directory run with no active
 * reference; seq_show, for comparison, runs with one.
 */
static void kernfs_guide_test_some_methods_run_without_active_ref(struct kunit *test)
{
	static const int fail_with;
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;
	struct kernfs_node *lazy, *kn;
	struct seq_file sf = { };
	struct vfsmount *mnt;
	struct file *file;

	kernfs_guide_test_file(test, t->top, "rel",
			       &kernfs_guide_test_release_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	file = kernfs_guide_test_open(test, mnt, "rel", O_RDONLY);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, seen->show_active, 1);
	KUNIT_EXPECT_EQ(test, seen->releases, 1);
	KUNIT_EXPECT_EQ(test, seen->release_active, 0);

	/* What /proc/self/mountinfo calls, for this mount. */
	mnt->mnt_sb->s_op->show_options(&sf, mnt->mnt_root);
	mnt->mnt_sb->s_op->show_path(&sf, mnt->mnt_root);
	KUNIT_EXPECT_EQ(test, seen->show_options_active, 0);
	KUNIT_EXPECT_EQ(test, seen->show_path_active, 0);

	/* Created, not activated: populate() runs, with no active ref. */
	lazy = kernfs_create_lazy_dir_ns(t->top, "lazy", 0755, GLOBAL_ROOT_UID,
					 GLOBAL_ROOT_GID, (void *)&fail_with,
					 NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lazy));
	kn = kernfs_find_and_get(lazy, "a");
	KUNIT_EXPECT_NOT_NULL(test, kn);
	kernfs_put(kn);
	KUNIT_EXPECT_EQ(test, seen->populate_calls, 1);
	KUNIT_EXPECT_LT(test, seen->populate_active, 0);
}

/*
 * lazy.rst, reference/roots.rst: a failed populate() removes every
 * child of the directory, also one its owner created there before.
 */
static void kernfs_guide_test_failed_populate_removes_owner_children(struct kunit *test)
{
	static const int fail_with = -EIO;
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *lazy, *own, *kn;

	lazy = kernfs_create_lazy_dir_ns(t->top, "lazy", 0755, GLOBAL_ROOT_UID,
					 GLOBAL_ROOT_GID, (void *)&fail_with,
					 NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lazy));
	own = kernfs_guide_test_file(test, lazy, "own",
				     &kernfs_guide_test_show_ops);
	kernfs_get(own);
	kernfs_activate(lazy);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.populate_calls, 0);

	kn = kernfs_find_and_get(lazy, "a");
	KUNIT_EXPECT_NULL(test, kn);
	kernfs_put(kn);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.populate_calls, 1);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&lazy->dir.children));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&own->rb));
	kernfs_put(own);
}

/*
 * reference/lookup.rst: a path cut short returns the length it stored,
 * and a "/.." part that does not fit is -E2BIG.
 */
static void kernfs_guide_test_path_truncated_returns_truncated_length(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *alpha, *beta, *gamma;
	char buf[32];

	alpha = kernfs_guide_test_dir(test, t->top, "alpha");
	beta = kernfs_guide_test_dir(test, alpha, "beta");
	gamma = kernfs_guide_test_dir(test, t->top, "gamma");

	KUNIT_EXPECT_EQ(test, kernfs_path(beta, buf, sizeof(buf)), 11);
	KUNIT_EXPECT_STREQ(test, buf, "/alpha/beta");

	KUNIT_EXPECT_EQ(test, kernfs_path(beta, buf, 8), 7);
	KUNIT_EXPECT_STREQ(test, buf, "/alpha/");

	KUNIT_EXPECT_EQ(test,
			kernfs_path_from_node(beta, gamma, buf, sizeof(buf)),
			14);
	KUNIT_EXPECT_STREQ(test, buf, "/../alpha/beta");
	KUNIT_EXPECT_EQ(test, kernfs_path_from_node(beta, gamma, buf, 3),
			-E2BIG);
}

/*
 * reference/files.rst, notify.rst: a file opened and not yet read
 * polls as notified; a read clears it and kernfs_notify() sets it.
 */
static void kernfs_guide_test_generic_poll_reports_event_before_first_read(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *kn;
	struct vfsmount *mnt;
	struct file *file;

	kn = kernfs_guide_test_file(test, t->top, "plain",
				    &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	file = kernfs_guide_test_open(test, mnt, "plain", O_RDONLY);

	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) & EPOLLPRI);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_read(file), 2);
	KUNIT_EXPECT_FALSE(test, vfs_poll(file, NULL) & EPOLLPRI);
	kernfs_notify(kn);
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) & EPOLLPRI);
	__fput_sync(file);
}

/*
 * concepts.rst, permissions.rst, inodes.rst: listxattr() allocates the
 * node's iattr even though nothing differs from the defaults.
 */
static void kernfs_guide_test_listxattr_allocates_iattr(struct kunit *test)
{
	struct kernfs_node *kn;
	struct path path;

	kn = kernfs_guide_test_plain(test, &path);
	KUNIT_EXPECT_NULL(test, kn->iattr);
	KUNIT_EXPECT_GE(test, vfs_listxattr(path.dentry, NULL, 0), 0);
	KUNIT_EXPECT_NOT_NULL(test, kn->iattr);
	path_put(&path);
}

/*
 * lazy.rst: mounts share the nodes and their ids, even mounts with
 * superblocks of their own (here, by namespace tag).
 */
static void kernfs_guide_test_ids_shared_between_mounts(struct kunit *test)
{
	static const int tag[2];
	struct kernfs_guide_test *t = test->priv;
	struct vfsmount *mnt[3];
	struct kernfs_node *kn;
	struct kstat st;
	struct path path;
	int i;

	kn = kernfs_guide_test_file(test, t->top, "plain",
				    &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt[0] = kernfs_guide_test_mount(test, &tag[0]);
	mnt[1] = kernfs_guide_test_mount(test, &tag[1]);
	mnt[2] = kernfs_guide_test_mount(test, &tag[0]);
	KUNIT_EXPECT_PTR_NE(test, mnt[0]->mnt_sb, mnt[1]->mnt_sb);
	KUNIT_EXPECT_PTR_EQ(test, mnt[0]->mnt_sb, mnt[2]->mnt_sb);

	for (i = 0; i < ARRAY_SIZE(mnt); i++) {
		KUNIT_ASSERT_EQ(test, vfs_path_lookup(mnt[i]->mnt_root, mnt[i],
						      "plain", 0, &path), 0);
		KUNIT_EXPECT_EQ(test, vfs_getattr(&path, &st,
						  STATX_BASIC_STATS,
						  AT_STATX_SYNC_AS_STAT), 0);
		path_put(&path);
		KUNIT_EXPECT_EQ(test, st.ino, kernfs_ino(kn));
	}
}

#define KERNFS_GUIDE_TEST_CHUNK		4096
#define KERNFS_GUIDE_TEST_LINE		256

/* What /proc/lockdep says about one lock class. */
struct kernfs_guide_test_lock_class {
	const char *name;	/* the class */
	const char *after;	/* a class to look for among its direct deps */
	char usage[5];		/* hardirq and softirq usage, write and read */
	bool found;
	bool found_after;	/* @after was taken with @name held */
};

/* One line of /proc/lockdep, without its newline; @in: in @c's entry. */
static void kernfs_guide_test_lockdep_line(struct kernfs_guide_test_lock_class *c,
					   const char *line, size_t len,
					   bool *in)
{
	size_t n = strlen(c->name), a;

	if (!len) {
		*in = false;
		return;
	}
	/* "KEY FD: ... BD: ... +.+.: NAME" */
	if (len > n + 6 && !memcmp(line + len - n - 2, ": ", 2) &&
	    !memcmp(line + len - n, c->name, n)) {
		memcpy(c->usage, line + len - n - 6, 4);
		c->usage[4] = '\0';
		c->found = true;
		*in = true;
		return;
	}
	/* " -> [KEY] NAME", a class taken while holding it */
	if (*in && c->after) {
		a = strlen(c->after);
		if (len > a + 5 && !memcmp(line, " -> [", 5) &&
		    line[len - a - 1] == ' ' &&
		    !memcmp(line + len - a, c->after, a))
			c->found_after = true;
	}
}

/* Read /proc/lockdep for @c. */
static int kernfs_guide_test_lockdep(struct kernfs_guide_test_lock_class *c)
{
	char *buf, *line, *nl;
	struct file *file;
	size_t have = 0;
	bool in = false;
	loff_t pos = 0;
	ssize_t n;

	file = filp_open("/proc/lockdep", O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	buf = kmalloc(KERNFS_GUIDE_TEST_LINE + KERNFS_GUIDE_TEST_CHUNK,
		      GFP_KERNEL);
	if (!buf) {
		__fput_sync(file);
		return -ENOMEM;
	}
	while ((n = kernel_read(file, buf + have, KERNFS_GUIDE_TEST_CHUNK,
				&pos)) > 0) {
		have += n;
		line = buf;
		while ((nl = memchr(line, '\n', buf + have - line))) {
			kernfs_guide_test_lockdep_line(c, line, nl - line, &in);
			line = nl + 1;
		}
		/* Keep the start of a line that the next read completes. */
		have = buf + have - line;
		if (have > KERNFS_GUIDE_TEST_LINE)
			have = 0;
		memmove(buf, line, have);
	}
	kfree(buf);
	__fput_sync(file);
	if (n < 0)
		return n;
	return c->found ? 0 : -ENOENT;
}

/*
 * reference/lookup.rst: the last kernfs_put() takes kernfs_idr_lock
 * with a plain spin_lock(), and so does node creation, with hardirqs
 * enabled. Lockdep shows it: the lock's hardirq and softirq usage chars
 * are '+' (taken with them enabled, never in their context), so a last
 * put from an interrupt would be an inconsistent lock state, a possible
 * deadlock.
 */
static void kernfs_guide_test_put_takes_idr_lock_irqs_enabled(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *kn;
	struct kernfs_guide_test_lock_class c = { .name = "kernfs_idr_lock" };
	int ret;

	/* Take it both ways: create a node, then put it for the last time. */
	kn = kernfs_guide_test_file(test, t->top, "plain",
				    &kernfs_guide_test_show_ops);
	kernfs_get(kn);
	kernfs_remove(kn);
	kernfs_put(kn);

	ret = kernfs_guide_test_lockdep(&c);
	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "no lockdep in this kernel");
	KUNIT_ASSERT_EQ(test, ret, 0);
	kunit_info(test, "kernfs_idr_lock usage %s\n", c.usage);
	/* hardirq write, then softirq write: taken with both enabled */
	KUNIT_EXPECT_EQ(test, c.usage[0], '+');
	KUNIT_EXPECT_EQ(test, c.usage[2], '+');
}

/*
 * eventfs-lessons.rst: kernfs allocates, with GFP_KERNEL, under locks
 * of its own. Lockdep records an allocation that may enter reclaim as
 * taking "fs_reclaim": it must appear right after kernfs_rwsem (an
 * inode made in lookup), iattr_mutex (a node's first iattr) and the
 * open-file mutex (a file's first open node). Each is triggered here.
 */
static void kernfs_guide_test_allocates_under_own_locks(struct kunit *test)
{
	struct kernfs_guide_test_lock_class c[] = {
		{ .name = "&root->kernfs_rwsem", .after = "fs_reclaim" },
		{ .name = "iattr_mutex", .after = "fs_reclaim" },
		{ .name = "&kernfs_locks->open_file_mutex[count]",
		  .after = "fs_reclaim" },
	};
	struct kernfs_guide_test *t = test->priv;
	struct vfsmount *mnt;
	struct file *file;
	struct path path;
	int i;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "no lockdep in this kernel");
	kernfs_guide_test_file(test, t->top, "plain",
			       &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	/* lookup: a new inode; open: the open node; listxattr: the iattr */
	file = kernfs_guide_test_open(test, mnt, "plain", O_RDONLY);
	__fput_sync(file);
	KUNIT_ASSERT_EQ(test, vfs_path_lookup(mnt->mnt_root, mnt, "plain", 0,
					      &path), 0);
	KUNIT_EXPECT_GE(test, vfs_listxattr(path.dentry, NULL, 0), 0);
	path_put(&path);

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kernfs_guide_test_lockdep(&c[i]), 0,
				    "%s", c[i].name);
		KUNIT_EXPECT_TRUE_MSG(test, c[i].found_after,
				      "%s -> fs_reclaim", c[i].name);
	}
}

/* Call the vm_ops kernfs installed on @vma, as the mm would. */
static void kernfs_guide_test_call_vm_ops(struct kunit *test,
					  struct vm_area_struct *vma,
					  int access, vm_fault_t mkwrite)
{
	struct vm_fault vmf = { .vma = vma, .address = vma->vm_start };
	char buf[4];

	KUNIT_EXPECT_EQ(test, vma->vm_ops->access(vma, vma->vm_start, buf, 1,
						  0), access);
	/* vm_fault_t is __bitwise: compare, do not subtract. */
	KUNIT_EXPECT_TRUE(test, vma->vm_ops->page_mkwrite(&vmf) == mkwrite);
	vma->vm_ops->open(vma);
}

/*
 * files.rst: once a mapped file is removed, kernfs calls none of the
 * vm_ops it wrapped: a fault gives SIGBUS (here, a failed copy from
 * the mapping), so does page_mkwrite, access fails with -EINVAL, and
 * open returns without calling ours.
 */
static void kernfs_guide_test_removed_mapping_sigbus_einval_open_skipped(struct kunit *test)
{
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;
	struct kernfs_guide_test *t = test->priv;
	struct vm_area_struct *vma;
	struct kernfs_node *kn;
	struct vfsmount *mnt;
	unsigned long addr;
	struct file *file;
	char c;

	kn = kernfs_guide_test_file(test, t->top, "map",
				    &kernfs_guide_test_mmap_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	kernfs_guide_test_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, kernfs_guide_test_page);
	file = kernfs_guide_test_open(test, mnt, "map", O_RDONLY);
	addr = kunit_vm_mmap(test, file, 0, PAGE_SIZE, PROT_READ, MAP_SHARED,
			     0);
	KUNIT_EXPECT_TRUE(test, addr && !IS_ERR_VALUE(addr));
	if (!addr || IS_ERR_VALUE(addr))
		goto out;

	/* Before removal: ours run. */
	KUNIT_EXPECT_EQ(test, copy_from_user(&c, (void __user *)addr, 1), 0);
	KUNIT_EXPECT_EQ(test, seen->vma_fault, 1);
	mmap_read_lock(current->mm);
	vma = find_vma(current->mm, addr);
	kernfs_guide_test_call_vm_ops(test, vma, 1, 0);
	mmap_read_unlock(current->mm);
	KUNIT_EXPECT_EQ(test, seen->vma_access, 1);
	KUNIT_EXPECT_EQ(test, seen->vma_page_mkwrite, 1);
	KUNIT_EXPECT_EQ(test, seen->vma_open, 1);

	/* Removal unmaps the page; the next fault cannot map it again. */
	kernfs_remove(kn);
	KUNIT_EXPECT_NE(test, copy_from_user(&c, (void __user *)addr, 1), 0);
	mmap_read_lock(current->mm);
	vma = find_vma(current->mm, addr);
	kernfs_guide_test_call_vm_ops(test, vma, -EINVAL, VM_FAULT_SIGBUS);
	mmap_read_unlock(current->mm);
	KUNIT_EXPECT_EQ(test, seen->vma_fault, 1);
	KUNIT_EXPECT_EQ(test, seen->vma_access, 1);
	KUNIT_EXPECT_EQ(test, seen->vma_page_mkwrite, 1);
	KUNIT_EXPECT_EQ(test, seen->vma_open, 1);

	vm_munmap(addr, PAGE_SIZE);
out:
	__fput_sync(file);
	/* The mapping's reference went to the delayed fput: finish it. */
	flush_delayed_fput();
	__free_page(kernfs_guide_test_page);
}

/*
 * files.rst: with prealloc and atomic_write_len, ->read is still asked
 * for up to PAGE_SIZE bytes, into the preallocated buffer, which has
 * atomic_write_len + 1.
 */
static void kernfs_guide_test_prealloc_read_asked_beyond_buffer(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct vfsmount *mnt;
	struct file *file;
	loff_t pos = 0;
	char *buf;

	buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	kernfs_guide_test_file(test, t->top, "pre",
			       &kernfs_guide_test_prealloc_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	file = kernfs_guide_test_open(test, mnt, "pre", O_RDONLY);
	KUNIT_EXPECT_EQ(test, kernel_read(file, buf, PAGE_SIZE, &pos), 0);
	__fput_sync(file);

	KUNIT_EXPECT_TRUE(test, kernfs_guide_test_seen.read_into_prealloc);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.read_count, PAGE_SIZE);
	KUNIT_EXPECT_GT(test, kernfs_guide_test_seen.read_count,
			kernfs_guide_test_prealloc_ops.atomic_write_len + 1);
}

/*
 * permissions.rst: under an S_ISGID parent, a new node takes the
 * parent's group only if the parent has an iattr (here, because it was
 * created with a non-root group); a new directory gets S_ISGID always.
 */
static void kernfs_guide_test_setgid_parent_group_only_with_iattr(struct kunit *test)
{
	static const char * const dirs[] = { "sg0/c", "sg1/c" };
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *sg0, *sg1, *kn;
	kgid_t gid = KGIDT_INIT(1000);
	struct vfsmount *mnt;
	struct kstat st[2];
	struct path path;
	int i;

	sg0 = kernfs_create_dir_ns(t->top, "sg0", 02755, GLOBAL_ROOT_UID,
				   GLOBAL_ROOT_GID, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sg0));
	sg1 = kernfs_create_dir_ns(t->top, "sg1", 02755, GLOBAL_ROOT_UID, gid,
				   NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sg1));
	kn = kernfs_create_dir_ns(sg0, "c", 0755, GLOBAL_ROOT_UID, gid, NULL,
				  NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));
	kn = kernfs_create_dir_ns(sg1, "c", 0755, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		KUNIT_ASSERT_EQ(test, vfs_path_lookup(mnt->mnt_root, mnt,
						      dirs[i], 0, &path), 0);
		KUNIT_EXPECT_EQ(test, vfs_getattr(&path, &st[i],
						  STATX_BASIC_STATS,
						  AT_STATX_SYNC_AS_STAT), 0);
		path_put(&path);
		KUNIT_EXPECT_TRUE(test, st[i].mode & S_ISGID);
	}
	/* Parent in group root without an iattr: the group passed stays. */
	KUNIT_EXPECT_TRUE(test, gid_eq(st[0].gid, gid));
	/* Parent with an iattr: its group wins over the one passed. */
	KUNIT_EXPECT_TRUE(test, gid_eq(st[1].gid, gid));
}

/* The owner that stat() of @path reports now. */
static void kernfs_guide_test_owner(struct kunit *test, struct path *path,
				    uid_t uid, gid_t gid)
{
	struct kstat st;

	KUNIT_ASSERT_EQ(test, vfs_getattr(path, &st, STATX_BASIC_STATS,
					  AT_STATX_SYNC_AS_STAT), 0);
	KUNIT_EXPECT_EQ(test, from_kuid(&init_user_ns, st.uid), uid);
	KUNIT_EXPECT_EQ(test, from_kgid(&init_user_ns, st.gid), gid);
}

/*
 * permissions.rst: kernfs_root_set_owner() owns every node without
 * giving any an iattr; kernfs_setattr() then owns one node again, until
 * a kernfs_root_set_owner() that sets the same half of the owner.
 */
static void kernfs_guide_test_root_set_owner_allocates_nothing(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct iattr ia = {
		.ia_valid = ATTR_UID | ATTR_GID,
		.ia_uid = KUIDT_INIT(7),
		.ia_gid = KGIDT_INIT(8),
	};
	struct kernfs_node *kn;
	struct path path;

	kn = kernfs_guide_test_plain(test, &path);
	kernfs_root_set_owner(t->root, &ia);
	kernfs_guide_test_owner(test, &path, 7, 8);
	KUNIT_EXPECT_NULL(test, kn->iattr);
	KUNIT_EXPECT_NULL(test, t->top->iattr);

	ia.ia_valid = ATTR_UID;
	ia.ia_uid = KUIDT_INIT(9);
	KUNIT_EXPECT_EQ(test, kernfs_setattr(kn, &ia), 0);
	kernfs_guide_test_owner(test, &path, 9, 8);

	ia.ia_valid = ATTR_GID;
	ia.ia_gid = KGIDT_INIT(10);
	kernfs_root_set_owner(t->root, &ia);
	kernfs_guide_test_owner(test, &path, 9, 10);

	ia.ia_valid = ATTR_UID;
	ia.ia_uid = KUIDT_INIT(7);
	kernfs_root_set_owner(t->root, &ia);
	kernfs_guide_test_owner(test, &path, 7, 10);
	path_put(&path);
}

/*
 * notify.rst: on a root without KERNFS_ROOT_SUPPORT_USER_XATTR, getting
 * a user.* xattr fails with -ENODATA; only setting one is -EOPNOTSUPP.
 */
static void kernfs_guide_test_user_xattr_get_enodata_set_eopnotsupp(struct kunit *test)
{
	struct path path;

	kernfs_guide_test_plain(test, &path);
	KUNIT_EXPECT_EQ(test, vfs_getxattr(&nop_mnt_idmap, path.dentry,
					   "user.x", NULL, 0), -ENODATA);
	KUNIT_EXPECT_EQ(test, vfs_setxattr(&nop_mnt_idmap, path.dentry,
					   "user.x", "1", 1, 0), -EOPNOTSUPP);
	path_put(&path);
}

/*
 * directories.rst: kernfs's own ->rename refuses any flags with -EINVAL
 * before it looks for a rename method (without one: -EPERM).
 */
static void kernfs_guide_test_rename_flags_refused_by_kernfs(struct kunit *test)
{
	struct inode *dir;
	struct path path;

	kernfs_guide_test_plain(test, &path);
	dir = d_inode(path.mnt->mnt_root);
	/* Straight to kernfs_iop_rename(): no VFS check on the way. */
	KUNIT_EXPECT_EQ(test, dir->i_op->rename(&nop_mnt_idmap, dir,
						path.dentry, dir, path.dentry,
						RENAME_NOREPLACE), -EINVAL);
	KUNIT_EXPECT_EQ(test, dir->i_op->rename(&nop_mnt_idmap, dir,
						path.dentry, dir, path.dentry,
						0), -EPERM);
	path_put(&path);
}

/* The system calls behind mkdir(2), rmdir(2) and rename(2). */
struct kernfs_guide_test_syscalls {
	int (*mkdirat)(int dfd, struct filename *name, umode_t mode);
	int (*rmdir)(int dfd, struct filename *name);
	int (*renameat2)(int olddfd, struct filename *from, int newdfd,
			 struct filename *to, unsigned int flags);
};

static void kernfs_guide_test_syscalls(struct kunit *test,
				       struct kernfs_guide_test_syscalls *sys)
{
	sys->mkdirat = kernfs_guide_test_symbol(test, "do_mkdirat");
	sys->rmdir = kernfs_guide_test_symbol(test, "do_rmdir");
	sys->renameat2 = kernfs_guide_test_symbol(test, "do_renameat2");
	kernfs_guide_test_rename_ns = kernfs_guide_test_symbol(test,
							       "kernfs_rename_ns");
}

static int kernfs_guide_test_rename(struct kernfs_guide_test_syscalls *sys,
				    int fd, const char *from, int newfd,
				    const char *to)
{
	return sys->renameat2(fd, getname_kernel(from), newfd,
			      getname_kernel(to), 0);
}

/*
 * directories.rst: mkdir(2), rmdir(2) and rename(2) call their methods
 * with the inodes of the parents locked by the VFS (and of the removed
 * directory; and the superblock's rename mutex, for a move between
 * directories), an active reference on the parent, and no kernfs lock:
 * the methods create, remove and rename nodes.
 */
static void kernfs_guide_test_dir_methods_run_under_vfs_inode_locks(struct kunit *test)
{
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;
	struct kernfs_guide_test_syscalls sys;
	struct kernfs_node *top, *d1, *d2, *x, *kn;
	struct vfsmount *mnt;
	int fd;

	kernfs_guide_test_syscalls(test, &sys);
	top = kernfs_guide_test_root2(test, &kernfs_guide_test_dir_scops,
				      KERNFS_ROOT_CREATE_DEACTIVATED);
	d1 = kernfs_guide_test_dir(test, top, "d1");
	d2 = kernfs_guide_test_dir(test, top, "d2");
	x = kernfs_guide_test_dir(test, d1, "x");
	kernfs_activate(top);
	mnt = kernfs_guide_test_mount(test, NULL);
	kernfs_guide_test_sb = mnt->mnt_sb;
	fd = kernfs_guide_test_root_fd(test, mnt);

	KUNIT_EXPECT_EQ(test, sys.mkdirat(fd, getname_kernel("d1/new"), 0755),
			0);
	KUNIT_EXPECT_EQ(test, seen->mkdir_calls, 1);
	KUNIT_EXPECT_TRUE(test, seen->mkdir_locked);
	KUNIT_EXPECT_EQ(test, seen->mkdir_active, 1);
	KUNIT_EXPECT_EQ(test, seen->mkdir_path_len, 3);		/* "/d1" */
	kn = kernfs_find_and_get(d1, "new");
	KUNIT_EXPECT_NOT_NULL(test, kn);
	kernfs_put(kn);

	KUNIT_EXPECT_EQ(test, sys.rmdir(fd, getname_kernel("d1/new")), 0);
	KUNIT_EXPECT_EQ(test, seen->rmdir_calls, 1);
	KUNIT_EXPECT_TRUE(test, seen->rmdir_locked);
	kn = kernfs_find_and_get(d1, "new");
	KUNIT_EXPECT_NULL(test, kn);
	kernfs_put(kn);

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename(&sys, fd, "d1/x", fd,
						       "d2/y"), 0);
	KUNIT_EXPECT_EQ(test, seen->rename_calls, 1);
	KUNIT_EXPECT_TRUE(test, seen->rename_locked);
	KUNIT_EXPECT_TRUE(test, seen->rename_mutex_locked);
	KUNIT_EXPECT_PTR_EQ(test, x->parent, d2);
	KUNIT_EXPECT_STREQ(test, x->name, "y");

	/* Outside the calls, the same checks find nothing locked. */
	KUNIT_EXPECT_FALSE(test, kernfs_guide_test_inode_locked(d1));
	KUNIT_EXPECT_FALSE(test, kernfs_guide_test_inode_locked(d2));
	KUNIT_EXPECT_FALSE(test,
			   mutex_is_locked(&mnt->mnt_sb->s_vfs_rename_mutex));

	close_fd(fd);
	flush_delayed_fput();
}

/*
 * directories.rst: rename(2) of a directory into its own subtree fails
 * with EINVAL, and from one mount to another (another root, or another
 * mount of the same superblock) with EXDEV, before kernfs is called.
 */
static void kernfs_guide_test_vfs_refuses_rename_into_subdir_and_across_mounts(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_guide_test_syscalls sys;
	struct vfsmount *mnt, *mnt_again, *mnt_other;
	struct kernfs_node *top, *d1;
	int fd, fd_again, fd_other;

	kernfs_guide_test_syscalls(test, &sys);
	kernfs_guide_test_file(test, t->top, "plain",
			       &kernfs_guide_test_show_ops);
	kernfs_activate(t->top);
	mnt_other = kernfs_guide_test_mount(test, NULL);
	top = kernfs_guide_test_root2(test, &kernfs_guide_test_dir_scops,
				      KERNFS_ROOT_CREATE_DEACTIVATED);
	d1 = kernfs_guide_test_dir(test, top, "d1");
	kernfs_guide_test_dir(test, d1, "x");
	kernfs_activate(top);
	mnt = kernfs_guide_test_mount(test, NULL);
	mnt_again = kernfs_guide_test_mount(test, NULL);
	KUNIT_EXPECT_PTR_EQ(test, mnt->mnt_sb, mnt_again->mnt_sb);
	kernfs_guide_test_sb = mnt->mnt_sb;
	fd = kernfs_guide_test_root_fd(test, mnt);
	fd_again = kernfs_guide_test_root_fd(test, mnt_again);
	fd_other = kernfs_guide_test_root_fd(test, mnt_other);

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename(&sys, fd, "d1", fd,
						       "d1/x/d1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename(&sys, fd, "d1",
						       fd_other, "d1"), -EXDEV);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename(&sys, fd, "d1",
						       fd_again, "d2"), -EXDEV);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.rename_calls, 0);

	/* Within one mount, the same move reaches the method. */
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename(&sys, fd, "d1", fd,
						       "d2"), 0);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.rename_calls, 1);
	KUNIT_EXPECT_STREQ(test, d1->name, "d2");

	close_fd(fd_other);
	close_fd(fd_again);
	close_fd(fd);
	flush_delayed_fput();
}

/*
 * directories.rst: kernfs_rename_ns() moves a directory into its own
 * child: the two become each other's parent, out of the tree. Moved
 * back, with a new name, the node has a new copy of its name, which
 * kernfs_path() of its child shows.
 */
static void kernfs_guide_test_rename_ns_makes_cycle(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_node *a, *b, *kn;
	const char *old_name;
	char buf[8];

	kernfs_guide_test_rename_ns = kernfs_guide_test_symbol(test,
							       "kernfs_rename_ns");
	a = kernfs_guide_test_dir(test, t->top, "a");
	b = kernfs_guide_test_dir(test, a, "b");
	kernfs_activate(t->top);

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename_ns(a, b, "a", NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, a->parent, b);
	KUNIT_EXPECT_PTR_EQ(test, b->parent, a);
	kn = kernfs_find_and_get(t->top, "a");
	KUNIT_EXPECT_NULL(test, kn);
	kernfs_put(kn);

	old_name = a->name;
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_rename_ns(a, t->top, "c", NULL),
			0);
	KUNIT_EXPECT_PTR_EQ(test, a->parent, t->top);
	KUNIT_EXPECT_PTR_EQ(test, b->parent, a);
	KUNIT_EXPECT_PTR_NE(test, a->name, old_name);
	KUNIT_EXPECT_STREQ(test, a->name, "c");
	/* What a reader should use: a copy made under kernfs_rename_lock */
	KUNIT_EXPECT_EQ(test, kernfs_path(b, buf, sizeof(buf)), 4);
	KUNIT_EXPECT_STREQ(test, buf, "/c/b");
}

/* A mapping of @file at page @pgoff, or the error. */
static long kernfs_guide_test_map(struct file *file, unsigned long pgoff)
{
	return vm_mmap(file, 0, PAGE_SIZE, PROT_READ, MAP_SHARED,
		       pgoff << PAGE_SHIFT);
}

/*
 * files.rst: the first mmap() of an open file fixes its vm_ops; a later
 * one that installs others fails with -EINVAL, after ->mmap ran. Another
 * open of the file chooses again. A vm_ops with close is refused.
 */
static void kernfs_guide_test_second_mmap_other_vm_ops_einval(struct kunit *test)
{
	struct kernfs_guide_test *t = test->priv;
	struct file *file[3];
	unsigned long first;
	struct vfsmount *mnt;
	long addr[2];
	int i;

	kernfs_guide_test_file(test, t->top, "map",
			       &kernfs_guide_test_mmap_ops);
	kernfs_activate(t->top);
	mnt = kernfs_guide_test_mount(test, NULL);
	for (i = 0; i < ARRAY_SIZE(file); i++)
		file[i] = kernfs_guide_test_open(test, mnt, "map", O_RDONLY);

	/* kunit_vm_mmap() gives the case an mm; the rest use vm_mmap() */
	first = kunit_vm_mmap(test, file[0], 0, PAGE_SIZE, PROT_READ,
			      MAP_SHARED, 0);
	KUNIT_ASSERT_TRUE(test, first && !IS_ERR_VALUE(first));
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_map(file[0], 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.mmap_calls, 2);
	addr[0] = kernfs_guide_test_map(file[0], 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(addr[0]));

	addr[1] = kernfs_guide_test_map(file[1], 1);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(addr[1]));

	KUNIT_EXPECT_EQ(test, kernfs_guide_test_map(file[2], 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_seen.mmap_calls, 5);

	vm_munmap(first, PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(addr); i++)
		if (!IS_ERR_VALUE(addr[i]))
			vm_munmap(addr[i], PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(file); i++)
		__fput_sync(file[i]);
	flush_delayed_fput();
}

/* The entries of directory @path of @mnt, by readdir, in @l. */
static void kernfs_guide_test_list_path(struct kunit *test,
					struct vfsmount *mnt, const char *path,
					struct kernfs_guide_test_lister *l)
{
	struct file *file;

	memset(l, 0, sizeof(*l));
	l->stop_after = -1;
	l->remove_at = -1;
	file = kernfs_guide_test_open(test, mnt, path, O_RDONLY | O_DIRECTORY);
	kernfs_guide_test_list(file, l);
	__fput_sync(file);
}

static int kernfs_guide_test_lookup_ino(struct kunit *test,
					struct vfsmount *mnt, const char *name,
					u64 *ino)
{
	struct kstat st;
	struct path path;
	int ret;

	ret = vfs_path_lookup(mnt->mnt_root, mnt, name, 0, &path);
	if (ret)
		return ret;
	ret = vfs_getattr(&path, &st, STATX_BASIC_STATS,
			  AT_STATX_SYNC_AS_STAT);
	path_put(&path);
	*ino = st.ino;
	return ret;
}

/*
 * notify.rst: in a namespaced directory, a mount sees the children with
 * its superblock's tag, in lookup and in readdir; two children may have
 * one name with different tags.
 */
static void kernfs_guide_test_ns_mount_sees_only_its_tag(struct kunit *test)
{
	static const int tag[2];
	struct kernfs_guide_test *t = test->priv;
	struct kernfs_guide_test_lister *l;
	struct kernfs_node *net, *x[2], *kn;
	struct vfsmount *mnt[2];
	u64 ino;
	int i;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	net = kernfs_guide_test_dir(test, t->top, "net");
	kernfs_enable_ns(net);
	for (i = 0; i < ARRAY_SIZE(tag); i++) {
		x[i] = __kernfs_create_file(net, "x", S_IFREG | 0444,
					    GLOBAL_ROOT_UID, GLOBAL_ROOT_GID,
					    0, &kernfs_guide_test_show_ops,
					    NULL, &tag[i], NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(x[i]));
	}
	kn = __kernfs_create_file(net, "only1", S_IFREG | 0444,
				  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
				  &kernfs_guide_test_show_ops, NULL, &tag[1],
				  NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));
	kernfs_activate(t->top);

	for (i = 0; i < ARRAY_SIZE(tag); i++) {
		mnt[i] = kernfs_guide_test_mount(test, &tag[i]);
		KUNIT_EXPECT_EQ(test, kernfs_guide_test_lookup_ino(test, mnt[i],
								   "net/x",
								   &ino), 0);
		KUNIT_EXPECT_EQ(test, ino, kernfs_ino(x[i]));
		kernfs_guide_test_list_path(test, mnt[i], "net", l);
		/* readdir goes in hash order: count, do not index */
		KUNIT_EXPECT_EQ(test, l->n, i + 1);
		KUNIT_EXPECT_EQ(test, kernfs_guide_test_count(l, "x"), 1);
		KUNIT_EXPECT_EQ(test, kernfs_guide_test_count(l, "only1"), i);
	}
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_lookup_ino(test, mnt[0],
							   "net/only1", &ino),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kernfs_guide_test_lookup_ino(test, mnt[1],
							   "net/only1", &ino),
			0);

	/* In the kernel, the tag is an argument. */
	kn = kernfs_find_and_get_ns(net, "x", &tag[1]);
	KUNIT_EXPECT_PTR_EQ(test, kn, x[1]);
	kernfs_put(kn);
}

/*
 * inodes.rst, lazy.rst: only a root with KERNFS_ROOT_SUPPORT_EXPORTOP
 * decodes file handles; decoding one of a lazy directory finds it by id
 * and does not populate it. A lookup in it then does.
 */
static void kernfs_guide_test_handle_decoded_without_populate(struct kunit *test)
{
	static const int fail_with;
	struct kernfs_guide_test_seen *seen = &kernfs_guide_test_seen;
	const struct export_operations *eops;
	struct kernfs_node *top, *lazy;
	struct vfsmount *mnt;
	struct dentry *dentry;
	struct path path;
	int len = 2, ret;
	u64 fh;

	mnt = kernfs_guide_test_mount(test, NULL);
	KUNIT_EXPECT_FALSE(test, exportfs_can_decode_fh(mnt->mnt_sb->s_export_op));

	top = kernfs_guide_test_root2(test, &kernfs_guide_test_scops,
				      KERNFS_ROOT_CREATE_DEACTIVATED |
				      KERNFS_ROOT_SUPPORT_EXPORTOP);
	lazy = kernfs_create_lazy_dir_ns(top, "lazy", 0755, GLOBAL_ROOT_UID,
					 GLOBAL_ROOT_GID, (void *)&fail_with,
					 NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lazy));
	kernfs_activate(top);
	mnt = kernfs_guide_test_mount(test, NULL);
	eops = mnt->mnt_sb->s_export_op;
	KUNIT_ASSERT_TRUE(test, exportfs_can_decode_fh(eops));

	/* What name_to_handle_at() does */
	KUNIT_ASSERT_EQ(test, vfs_path_lookup(mnt->mnt_root, mnt, "lazy", 0,
					      &path), 0);
	KUNIT_EXPECT_EQ(test, eops->encode_fh(d_inode(path.dentry), (u32 *)&fh,
					      &len, NULL), FILEID_KERNFS);
	path_put(&path);
	KUNIT_EXPECT_EQ(test, fh, lazy->id);
	KUNIT_EXPECT_EQ(test, seen->populate_calls, 0);

	/* What open_by_handle_at() does, after its permission checks */
	dentry = eops->fh_to_dentry(mnt->mnt_sb, (struct fid *)&fh, len,
				    FILEID_KERNFS);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dentry));
	KUNIT_EXPECT_PTR_EQ(test, d_inode(dentry)->i_private, (void *)lazy);
	KUNIT_EXPECT_EQ(test, seen->populate_calls, 0);

	/* A lookup in the directory found by handle populates it. */
	ret = vfs_path_lookup(dentry, mnt, "a", 0, &path);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		path_put(&path);
	dput(dentry);
	KUNIT_EXPECT_EQ(test, seen->populate_calls, 1);
}

static struct kunit_case kernfs_guide_test_cases[] = {
	KUNIT_CASE(kernfs_guide_test_open_file_works_again_after_show),
	KUNIT_CASE(kernfs_guide_test_released_file_stays_dead_after_show),
	KUNIT_CASE(kernfs_guide_test_readdir_repeats_entry_when_position_removed),
	KUNIT_CASE(kernfs_guide_test_readdir_skips_entry_when_emitted_one_removed),
	KUNIT_CASE(kernfs_guide_test_some_methods_run_without_active_ref),
	KUNIT_CASE(kernfs_guide_test_failed_populate_removes_owner_children),
	KUNIT_CASE(kernfs_guide_test_path_truncated_returns_truncated_length),
	KUNIT_CASE(kernfs_guide_test_generic_poll_reports_event_before_first_read),
	KUNIT_CASE(kernfs_guide_test_listxattr_allocates_iattr),
	KUNIT_CASE(kernfs_guide_test_ids_shared_between_mounts),
	KUNIT_CASE(kernfs_guide_test_put_takes_idr_lock_irqs_enabled),
	KUNIT_CASE(kernfs_guide_test_allocates_under_own_locks),
	KUNIT_CASE(kernfs_guide_test_removed_mapping_sigbus_einval_open_skipped),
	KUNIT_CASE(kernfs_guide_test_prealloc_read_asked_beyond_buffer),
	KUNIT_CASE(kernfs_guide_test_setgid_parent_group_only_with_iattr),
	KUNIT_CASE(kernfs_guide_test_root_set_owner_allocates_nothing),
	KUNIT_CASE(kernfs_guide_test_user_xattr_get_enodata_set_eopnotsupp),
	KUNIT_CASE(kernfs_guide_test_rename_flags_refused_by_kernfs),
	KUNIT_CASE(kernfs_guide_test_dir_methods_run_under_vfs_inode_locks),
	KUNIT_CASE(kernfs_guide_test_vfs_refuses_rename_into_subdir_and_across_mounts),
	KUNIT_CASE(kernfs_guide_test_rename_ns_makes_cycle),
	KUNIT_CASE(kernfs_guide_test_second_mmap_other_vm_ops_einval),
	KUNIT_CASE(kernfs_guide_test_ns_mount_sees_only_its_tag),
	KUNIT_CASE(kernfs_guide_test_handle_decoded_without_populate),
	{}
};

static int kernfs_guide_test_suite_init(struct kunit_suite *suite)
{
	return register_filesystem(&kernfs_guide_test_fs_type);
}

static void kernfs_guide_test_suite_exit(struct kunit_suite *suite)
{
	unregister_filesystem(&kernfs_guide_test_fs_type);
}

static struct kunit_suite kernfs_guide_test_suite = {
	.name = "kernfs_guide",
	.suite_init = kernfs_guide_test_suite_init,
	.suite_exit = kernfs_guide_test_suite_exit,
	.init = kernfs_guide_test_init,
	.exit = kernfs_guide_test_exit,
	.test_cases = kernfs_guide_test_cases,
};

kunit_test_suite(kernfs_guide_test_suite);

MODULE_DESCRIPTION("KUnit tests behind the claims of the kernfs guide");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
