// SPDX-License-Identifier: GPL-2.0
/*
 * Event directories built from a static table of entries.
 *
 * A directory and its files are created while deactivated (the root has
 * KERNFS_ROOT_CREATE_DEACTIVATED) and shown with one kernfs_activate(),
 * so a reader sees all of a directory or nothing of it. A lazy directory
 * is shown empty and gets its files and subdirectories from kernfs's
 * populate callback, on first use; kernfs activates them together. Each
 * directory is a &struct kfe_dir, the kernfs_node's priv, that remembers
 * its table and its file nodes.
 *
 * Memory reclaim gives back the nodes of a lazy directory that nobody
 * uses (kfe_dir_reclaim(), kernfs_depopulate()); the next access makes
 * them again, with the same inode numbers when the directory was given
 * a block of them and its files fit in it.
 */
#include <linux/kernfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "kernfs_events.h"

/**
 * struct kfe_dir - an event directory
 * @kn: its kernfs node
 * @parent: the directory above, or NULL for an events root
 * @children: the directories below, on their @sibling
 * @sibling: entry in the parent's @children; empty for an events root
 * @entries: the table the files were built from
 * @nr_entries: its length
 * @populated: a lazy directory that has its nodes, under kfe_tree_lock
 * @files_beyond_block: a file got its number from kernfs, not from the
 *	directory's block (more files than the block holds): made again,
 *	it would get another, so reclaim leaves the directory be
 * @data: the data passed to each entry's callback
 * @subdirs: the subdirectories of a lazy directory, or NULL
 */
struct kfe_dir {
	struct kernfs_node	*kn;
	struct kfe_dir		*parent;
	struct list_head	children;
	struct list_head	sibling;
	const struct kfe_entry	*entries;
	int			nr_entries;
	bool			populated;
	bool			files_beyond_block;
	void			*data;
	const struct kfe_subdirs *subdirs;
};

/*
 * One lockdep class for the active references of every file, so that
 * lockdep sees an operation's locks nest inside it and reports a
 * removal made under one of them.
 */
static struct lock_class_key kfe_active_key;

/*
 * Protects the links between kfe_dirs and their populated flags, not the
 * kernfs nodes. Memory reclaim takes it: nothing allocates under it.
 */
static DEFINE_MUTEX(kfe_tree_lock);

/* The lazy directories that have their nodes: what reclaim could free. */
static atomic_long_t kfe_nr_populated;

static int kfe_check_name(const char *name)
{
	size_t len = strnlen(name, NAME_MAX + 1);

	if (!len || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* What an entry's callback decided: a file to create if @ops is set. */
struct kfe_file_spec {
	const struct kernfs_ops	*ops;
	void			*data;
	umode_t			mode;
};

/*
 * Ask each entry's callback whether its file exists, and its mode, ops
 * and data. Called with no lock of this module held, since callbacks
 * take their owner's locks (tracing's event_mutex for the mirror).
 */
static struct kfe_file_spec *kfe_dir_query_files(struct kfe_dir *dir)
{
	struct kfe_file_spec *specs;
	int i, ret;

	specs = kcalloc(dir->nr_entries, sizeof(*specs), GFP_KERNEL);
	if (!specs)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < dir->nr_entries; i++) {
		const struct kfe_entry *entry = &dir->entries[i];
		const struct kernfs_ops *ops = NULL;
		void *data = dir->data;
		umode_t mode = 0444;

		ret = entry->callback(entry->name, &mode, &data, &ops);
		if (ret < 0)
			goto err;
		if (!ret)
			continue;
		/* A readable file must be able to report its size. */
		ret = -EINVAL;
		if (!ops || ((ops->seq_show || ops->read) && !ops->size))
			goto err;
		specs[i].ops = ops;
		specs[i].data = data;
		specs[i].mode = S_IFREG | (mode & S_IALLUGO);
	}
	return specs;
err:
	kfree(specs);
	return ERR_PTR(ret);
}

/*
 * Create the files of @dir that @specs give, still deactivated: at
 * creation, or on first use for a lazy directory. On error the files
 * made so far are left for the caller.
 */
static int kfe_dir_create_files(struct kfe_dir *dir,
				const struct kfe_file_spec *specs)
{
	u32 block = kernfs_ino(dir->kn);
	struct kernfs_node *kn;
	int i;

	for (i = 0; i < dir->nr_entries; i++) {
		if (!specs[i].ops)
			continue;
		kn = __kernfs_create_file(dir->kn, dir->entries[i].name,
					  specs[i].mode, GLOBAL_ROOT_UID,
					  GLOBAL_ROOT_GID, 0, specs[i].ops,
					  specs[i].data, NULL, &kfe_active_key);
		if (IS_ERR(kn))
			return PTR_ERR(kn);
		if ((u32)kernfs_ino(kn) - block >= KERNFS_LAZY_INO_BLOCK)
			dir->files_beyond_block = true;
	}
	return 0;
}

/* Free @top and every directory below it, children first. */
static void kfe_dir_free(struct kfe_dir *top)
{
	struct kfe_dir *dir = top;

	for (;;) {
		struct kfe_dir *child, *parent = dir->parent;

		child = list_first_entry_or_null(&dir->children,
						 struct kfe_dir, sibling);
		if (child) {
			dir = child;
			continue;
		}
		if (dir->populated)
			atomic_long_dec(&kfe_nr_populated);
		if (dir == top) {
			kfree(dir);
			return;
		}
		list_del(&dir->sibling);
		kfree(dir);
		dir = parent;
	}
}

/*
 * Forget the subdirectories of @dir, which kernfs has removed: free the
 * directories below it.
 */
static void kfe_dir_forget_nodes(struct kfe_dir *dir)
{
	struct kfe_dir *child, *tmp;

	lockdep_assert_held(&kfe_tree_lock);
	list_for_each_entry_safe(child, tmp, &dir->children, sibling) {
		list_del(&child->sibling);
		kfe_dir_free(child);
	}
}

/**
 * kfe_dir_populate - kernfs's populate callback for a lazy directory
 * @kn: the directory, whose priv is its &struct kfe_dir
 *
 * Creates the directory's files, then lets its subdirs->create() make its
 * subdirectories. kernfs calls this once, holding an active reference
 * on @kn, before anyone can see the children.
 *
 * Return: 0, or the first error; then nothing it created is left and
 * kernfs calls it again on the next access.
 */
int kfe_dir_populate(struct kernfs_node *kn)
{
	struct kfe_dir *dir = kn->priv;
	struct kfe_file_spec *specs;
	int ret;

	/*
	 * The active reference that kernfs holds keeps the data alive, and
	 * a removal of this directory or of one above it waits for the
	 * call to end before it frees what the call made (patches/0005).
	 */
	specs = kfe_dir_query_files(dir);
	if (IS_ERR(specs))
		return PTR_ERR(specs);

	ret = kfe_dir_create_files(dir, specs);
	if (!ret && dir->subdirs)
		ret = dir->subdirs->create(dir, dir->data);

	/* On error kernfs removes the nodes; nothing else saw them. */
	mutex_lock(&kfe_tree_lock);
	if (ret) {
		kfe_dir_forget_nodes(dir);
	} else {
		dir->populated = true;
		atomic_long_inc(&kfe_nr_populated);
	}
	mutex_unlock(&kfe_tree_lock);
	kfree(specs);
	return ret;
}

/*
 * Whether @dir has a block of inode numbers and its files fit in it:
 * then its nodes, made again, get the numbers they have.
 */
static bool kfe_dir_numbered(struct kfe_dir *dir)
{
	u32 ino = kernfs_ino(dir->kn);

	lockdep_assert_held(&kfe_tree_lock);
	return ino >= KERNFS_LAZY_INO_MIN && !(ino % KERNFS_LAZY_INO_BLOCK) &&
	       !dir->files_beyond_block;
}

static unsigned long kfe_dir_reclaim_locked(struct kfe_dir *dir)
{
	bool numbered = kfe_dir_numbered(dir);
	unsigned long nr = 0;
	struct kfe_dir *child;

	lockdep_assert_held(&kfe_tree_lock);
	list_for_each_entry(child, &dir->children, sibling) {
		nr += kfe_dir_reclaim_locked(child);
		numbered &= kfe_dir_numbered(child);
	}
	/* The nodes made again must get the numbers they have. */
	if (!dir->populated || !numbered || kernfs_depopulate(dir->kn))
		return nr;

	kfe_dir_forget_nodes(dir);
	dir->populated = false;
	atomic_long_dec(&kfe_nr_populated);
	if (dir->subdirs && dir->subdirs->reclaimed)
		dir->subdirs->reclaimed(dir, dir->data);
	return nr + 1;
}

/**
 * kfe_dir_reclaim - give back the nodes of lazy directories nobody uses
 * @dir: the top of the subtree to look at
 *
 * Depopulates, from the bottom up, every lazy directory at or below @dir
 * whose nodes nothing uses (kernfs_depopulate()) and which, with its
 * subdirectories, has a block of inode numbers, so that the nodes made
 * again get the numbers they had: their kfe_dirs below are freed, and
 * each depopulated directory's subdirs->reclaimed() is called. The next
 * access populates them again. Waits for no lock but kfe_tree_lock,
 * which is never held around an allocation, so that a shrinker may call
 * it. The caller keeps @dir alive and serialises this against its own
 * kfe_create and kfe_remove calls below @dir.
 *
 * Return: the number of directories depopulated.
 */
unsigned long kfe_dir_reclaim(struct kfe_dir *dir)
{
	unsigned long nr;

	mutex_lock(&kfe_tree_lock);
	nr = kfe_dir_reclaim_locked(dir);
	mutex_unlock(&kfe_tree_lock);
	return nr;
}
EXPORT_SYMBOL_GPL(kfe_dir_reclaim);

/**
 * kfe_dir_nr_populated - how many lazy directories have their nodes
 *
 * Return: the number, which bounds what kfe_dir_reclaim() can free.
 */
unsigned long kfe_dir_nr_populated(void)
{
	return atomic_long_read(&kfe_nr_populated);
}

/**
 * kfe_dir_nr_subdirs - kernfs's nr_subdirs callback for a lazy directory
 * @kn: the directory, not populated yet, whose priv is its &struct kfe_dir
 *
 * kernfs holds an active reference on @kn, which keeps the data alive.
 *
 * Return: the number of subdirectories its population would make now.
 */
unsigned int kfe_dir_nr_subdirs(struct kernfs_node *kn)
{
	struct kfe_dir *dir = kn->priv;

	return dir->subdirs ? dir->subdirs->count(dir->data) : 0;
}

static int kfe_check_entries(const struct kfe_entry *entries, int nr_entries)
{
	int i, ret;

	if (nr_entries < 0 || (nr_entries && !entries))
		return -EINVAL;
	for (i = 0; i < nr_entries; i++) {
		ret = kfe_check_name(entries[i].name);
		if (ret)
			return ret;
	}
	return 0;
}

static struct kernfs_node *kfe_dir_mkdir_lazy(struct kernfs_node *parent,
					      const char *name,
					      struct kfe_dir *dir, u32 ino)
{
	return kernfs_create_lazy_dir_ns(parent, name, 0755, GLOBAL_ROOT_UID,
					 GLOBAL_ROOT_GID, dir, NULL, ino);
}

static struct kfe_dir *kfe_dir_create(const char *name,
				      struct kernfs_node *parent_kn,
				      struct kfe_dir *parent,
				      const struct kfe_entry *entries,
				      int nr_entries, void *data,
				      const struct kfe_subdirs *subdirs,
				      bool lazy, u32 ino)
{
	struct kfe_file_spec *specs = NULL;
	struct kernfs_node *kn;
	struct kfe_dir *dir;
	int ret;

	ret = kfe_check_entries(entries, nr_entries) ?: kfe_check_name(name);
	if (ret)
		return ERR_PTR(ret);

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return ERR_PTR(-ENOMEM);
	dir->nr_entries = nr_entries;
	dir->entries = entries;
	dir->data = data;
	dir->subdirs = subdirs;
	dir->parent = parent;
	INIT_LIST_HEAD(&dir->children);
	INIT_LIST_HEAD(&dir->sibling);

	if (!lazy) {
		specs = kfe_dir_query_files(dir);
		if (IS_ERR(specs)) {
			kfree(dir);
			return ERR_CAST(specs);
		}
	}

	if (lazy) {
		kn = kfe_dir_mkdir_lazy(parent_kn, name, dir, ino);
		/* Held by a removed directory that something still holds. */
		if (kn == ERR_PTR(-EBUSY) && ino)
			kn = kfe_dir_mkdir_lazy(parent_kn, name, dir, 0);
	} else {
		kn = kernfs_create_dir_ns(parent_kn, name, 0755,
					  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID,
					  dir, NULL);
	}
	if (IS_ERR(kn)) {
		ret = PTR_ERR(kn);
		goto out_free;
	}
	dir->kn = kn;

	ret = lazy ? 0 : kfe_dir_create_files(dir, specs);
	if (ret)
		goto out_remove;

	if (parent) {
		mutex_lock(&kfe_tree_lock);
		list_add_tail(&dir->sibling, &parent->children);
		mutex_unlock(&kfe_tree_lock);
	}
	kfree(specs);

	kernfs_activate(kn);
	return dir;

out_remove:
	/* Never activated: no reader saw it, no operation can be in flight. */
	kernfs_remove(kn);
out_free:
	kfree(specs);
	kfree(dir);
	return ERR_PTR(ret);
}

/**
 * kfe_create_events_root - create the top directory of an event tree
 * @name: the directory's name
 * @parent: the kernfs directory to create it in; NULL for the top of the
 *	kernfs_events mount, kfe_root_node()
 * @entries: the files it may contain; must outlive the directory
 * @nr_entries: the number of @entries
 * @data: passed to each entry's callback
 *
 * Like kfe_create_dir(), for a directory that has no &struct kfe_dir
 * above it. Mount options apply to this directory and everything created
 * below it with kfe_create_dir().
 *
 * Return: the directory, or an ERR_PTR(): -EINVAL for a bad name or
 * table or a readable file without ->size(), -ENAMETOOLONG for a name
 * longer than NAME_MAX, -EEXIST if @parent already has a node of that
 * name, -ENOMEM, or a callback's error. On error nothing was created and nothing was ever visible.
 */
struct kfe_dir *kfe_create_events_root(const char *name,
				       struct kernfs_node *parent,
				       const struct kfe_entry *entries,
				       int nr_entries, void *data)
{
	return kfe_dir_create(name, parent ?: kfe_root_node(), NULL, entries,
			      nr_entries, data, NULL, false, 0);
}
EXPORT_SYMBOL_GPL(kfe_create_events_root);

/**
 * kfe_create_lazy_events_root - kfe_create_events_root(), populated lazily
 * @name: the directory's name
 * @parent: the kernfs directory to create it in, or NULL as for
 *	kfe_create_events_root()
 * @entries: the files it may contain; must outlive the directory
 * @nr_entries: the number of @entries
 * @data: passed to each entry's callback and to @subdirs
 * @subdirs: makes and counts the subdirectories; NULL for none
 * @ino: 0, or the first of a block of inode numbers, as for
 *	kfe_create_lazy_dir()
 *
 * As kfe_create_lazy_dir(), for a directory with no &struct kfe_dir
 * above it.
 *
 * Return: the directory, or an ERR_PTR() as for kfe_create_lazy_dir().
 */
struct kfe_dir *kfe_create_lazy_events_root(const char *name,
					    struct kernfs_node *parent,
					    const struct kfe_entry *entries,
					    int nr_entries, void *data,
					    const struct kfe_subdirs *subdirs,
					    u32 ino)
{
	return kfe_dir_create(name, parent ?: kfe_root_node(), NULL, entries,
			      nr_entries, data, subdirs, true, ino);
}
EXPORT_SYMBOL_GPL(kfe_create_lazy_events_root);

/**
 * kfe_create_dir - create a directory and its files, atomically visible
 * @name: the directory's name
 * @parent: the directory to create it in
 * @entries: the files it may contain; must outlive the directory
 * @nr_entries: the number of @entries
 * @data: passed to each entry's callback
 *
 * Builds the directory and, for each entry whose callback returns > 0, a
 * file with the callback's mode, kernfs_ops and data (the node's priv,
 * which the ops find in of->kn->priv). Nothing is visible until all of
 * it is built; then one kernfs_activate() shows it. Owners follow the
 * mount's uid= and gid=; sizes are what each file's ->size() reports at
 * stat time.
 *
 * Callbacks run in the caller's context, which may sleep. The caller
 * keeps @parent alive for the duration of the call.
 *
 * Return: the directory, or an ERR_PTR() as for kfe_create_events_root().
 */
struct kfe_dir *kfe_create_dir(const char *name, struct kfe_dir *parent,
			       const struct kfe_entry *entries,
			       int nr_entries, void *data)
{
	if (!parent)
		return ERR_PTR(-EINVAL);
	return kfe_dir_create(name, parent->kn, parent, entries, nr_entries,
			      data, NULL, false, 0);
}
EXPORT_SYMBOL_GPL(kfe_create_dir);

/**
 * kfe_create_lazy_dir - create a directory whose content is made on first use
 * @name: the directory's name
 * @parent: the directory to create it in
 * @entries: the files it may contain; must outlive the directory
 * @nr_entries: the number of @entries
 * @data: passed to each entry's callback and to @subdirs
 * @subdirs: makes and counts the subdirectories; NULL for none
 * @ino: 0, or the first of a block of %KERNFS_LAZY_INO_BLOCK inode
 *	numbers from %KERNFS_LAZY_INO_MIN up that the caller keeps for this
 *	directory while it exists: the directory and its files then keep
 *	their numbers when reclaim gives back the nodes and the next access
 *	makes them again. While a removed directory that something still
 *	holds has the number, the directory gets one from kernfs instead,
 *	and kfe_dir_reclaim() leaves it and the directories above it be.
 *
 * Like kfe_create_dir(), but the directory appears empty of nodes: its
 * files, and the subdirectories that @subdirs creates with the kfe_create
 * calls, are made when someone first looks into it (a lookup, a readdir,
 * or kfe_dir_get_file()); a stat() reports the link count that @subdirs
 * counts, without making them. Until then it costs one kernfs node and
 * its &struct kfe_dir. The entry callbacks and @subdirs then run in the
 * context of that access; if one fails, the access fails with its error,
 * nothing it made is left, and the next access tries again. The entries'
 * names are checked here, so only a callback's error can appear later.
 *
 * Other code must not add subdirectories to a lazy directory before it
 * is populated: a failed population removes them with its own.
 *
 * Return: the directory, or an ERR_PTR(): -EINVAL for a bad name,
 * table or @ino, -ENAMETOOLONG for a name longer than NAME_MAX, -EEXIST
 * if @parent already has a node of that name, or -ENOMEM.
 */
struct kfe_dir *kfe_create_lazy_dir(const char *name, struct kfe_dir *parent,
				    const struct kfe_entry *entries,
				    int nr_entries, void *data,
				    const struct kfe_subdirs *subdirs, u32 ino)
{
	if (!parent)
		return ERR_PTR(-EINVAL);
	return kfe_dir_create(name, parent->kn, parent, entries, nr_entries,
			      data, subdirs, true, ino);
}
EXPORT_SYMBOL_GPL(kfe_create_lazy_dir);

/**
 * kfe_remove_dir - remove a directory, its files and its subdirectories
 * @dir: the directory; NULL or an ERR_PTR() is ignored
 *
 * kernfs_remove() hides the whole subtree at once, waits for the
 * populate callbacks in progress in it (one that starts later fails its
 * access with -ENOENT), then for every operation in flight on its
 * nodes, and releases their open files, which return -ENODEV from then
 * on. When this returns no kernfs_ops of the subtree is running or will
 * run, so the caller may free the data it gave the callbacks. @dir and
 * the directories below it are freed.
 *
 * Must not be called with a lock that those ops or a subdirs function
 * take, nor from an op of a file inside @dir, an entry callback or a
 * subdirs function.
 */
void kfe_remove_dir(struct kfe_dir *dir)
{
	if (IS_ERR_OR_NULL(dir))
		return;

	mutex_lock(&kfe_tree_lock);
	list_del(&dir->sibling);
	mutex_unlock(&kfe_tree_lock);

	kernfs_remove(dir->kn);
	kfe_dir_free(dir);
}
EXPORT_SYMBOL_GPL(kfe_remove_dir);

/**
 * kfe_dir_node - the kernfs node of a directory
 * @dir: the directory
 *
 * Return: the node, valid until kfe_remove_dir().
 */
struct kernfs_node *kfe_dir_node(struct kfe_dir *dir)
{
	return dir->kn;
}
EXPORT_SYMBOL_GPL(kfe_dir_node);

/**
 * kfe_dir_get_file - the node of one of a directory's files, referenced
 * @dir: the directory
 * @name: the entry's name
 *
 * Populates a lazy directory first; must not be called from an entry
 * callback or a subdirs function.
 *
 * Return: the file's node with a reference, which the caller drops with
 * kernfs_put(), or NULL if the table has no such entry, its callback
 * left it out, or populating the directory failed.
 */
struct kernfs_node *kfe_dir_get_file(struct kfe_dir *dir, const char *name)
{
	struct kernfs_node *kn;
	int i;

	for (i = 0; i < dir->nr_entries; i++)
		if (!strcmp(dir->entries[i].name, name))
			break;
	if (i == dir->nr_entries)
		return NULL;
	/* Searching the directory populates it. */
	kn = kernfs_find_and_get(dir->kn, name);
	if (kn && kernfs_type(kn) != KERNFS_FILE) {
		kernfs_put(kn);
		return NULL;
	}
	return kn;
}
EXPORT_SYMBOL_GPL(kfe_dir_get_file);
