// SPDX-License-Identifier: GPL-2.0
/*
 * File sizes: what st_size reports under the mount's size= policy.
 *
 * kernfs copies kn->attr.size into i_size only when it initialises an
 * inode, and offers no call to change it later. This layer therefore
 * sets kn->attr.size before a file is activated and, when the content
 * changes, stores the new size in kn->attr.size first and then in the
 * live inode, if there is one. An inode initialised in between reads the
 * new kn->attr.size; ilookup() waits for an inode still being set up, so
 * no inode keeps the old size.
 *
 * Under size=exact the content is measured by running the file's own
 * read operation, seq_show() or read(), into a buffer: the file's
 * rendering is the only definition of its length, so the size can never
 * disagree with what cat prints.
 */
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "kernfs_events.h"

/* Longer content is not measured: the file reports PAGE_SIZE instead. */
#define KFE_MEASURE_MAX		(256 * 1024)

/* Serialises measuring and storing, so the last change's size wins. */
static DEFINE_MUTEX(kfe_size_lock);

static bool kfe_readable(struct kernfs_node *kn)
{
	return kn->attr.ops->seq_show || kn->attr.ops->read;
}

/*
 * Run seq_show() as a single_open() read of the whole file would, with
 * no struct file: of->file and sf->file are NULL. The buffer doubles
 * until the record fits, as seq_read_iter() does.
 */
static loff_t kfe_measure_seq(struct kernfs_open_file *of)
{
	struct seq_file sf = { .private = of };
	size_t size = PAGE_SIZE;
	loff_t len;
	int ret;

	of->seq_file = &sf;
	for (;;) {
		sf.buf = kvmalloc(size, GFP_KERNEL);
		if (!sf.buf)
			return -ENOMEM;
		sf.size = size;
		sf.count = 0;
		ret = of->kn->attr.ops->seq_show(&sf, SEQ_START_TOKEN);
		len = ret < 0 ? ret : ret == SEQ_SKIP ? 0 : sf.count;
		kvfree(sf.buf);
		if (ret < 0 || !seq_has_overflowed(&sf))
			return len;
		size *= 2;
		if (size > KFE_MEASURE_MAX)
			return -EFBIG;
	}
}

/* Read the file with its raw read() until it returns 0. */
static loff_t kfe_measure_read(struct kernfs_open_file *of)
{
	loff_t len = 0;
	ssize_t ret;
	char *buf;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	do {
		ret = of->kn->attr.ops->read(of, buf, PAGE_SIZE, len);
		if (ret > 0)
			len += ret;
	} while (ret > 0 && len <= KFE_MEASURE_MAX);
	kfree(buf);
	if (ret < 0)
		return ret;
	return len > KFE_MEASURE_MAX ? -EFBIG : len;
}

/* The length of @kn's content, or a negative errno. */
static loff_t kfe_measure(struct kernfs_node *kn)
{
	struct kernfs_open_file *of;
	loff_t len;

	of = kzalloc(sizeof(*of), GFP_KERNEL);
	if (!of)
		return -ENOMEM;
	of->kn = kn;
	if (kn->attr.ops->seq_show && !kn->attr.ops->seq_start)
		len = kfe_measure_seq(of);
	else if (kn->attr.ops->read)
		len = kfe_measure_read(of);
	else
		len = -EOPNOTSUPP;	/* a seq_file iterator */
	kfree(of);
	return len;
}

/*
 * The size @kn reports under the current policy. Content that cannot be
 * measured (volatile, an iterator, too long, or a read error) reports
 * PAGE_SIZE, as under size=page. Only -ENOMEM is returned as an error.
 */
static loff_t kfe_policy_size(struct kernfs_node *kn,
			      const struct kfe_entry *entry)
{
	loff_t len;

	if (!kfe_readable(kn))
		return 0;
	switch (kfe_opts.size) {
	case KFE_SIZE_ZERO:
		return 0;
	case KFE_SIZE_PAGE:
		return PAGE_SIZE;
	case KFE_SIZE_EXACT:
		break;
	}
	if (entry->flags & KFE_ENTRY_VOLATILE)
		return PAGE_SIZE;
	len = kfe_measure(kn);
	if (len == -ENOMEM)
		return len;
	return len < 0 ? PAGE_SIZE : len;
}

/* Store @size in @kn and then in its live inode, if any. */
static void kfe_size_store(struct kernfs_node *kn, loff_t size)
{
	struct inode *inode;

	kn->attr.size = size;

	mutex_lock(&kfe_sb_lock);
	inode = kfe_sb ? ilookup(kfe_sb, kernfs_ino(kn)) : NULL;
	if (inode) {
		inode_lock(inode);
		i_size_write(inode, size);
		inode_unlock(inode);
		iput(inode);
	}
	mutex_unlock(&kfe_sb_lock);
}

/**
 * kfe_size_init - set the size of a file that is not yet activated
 * @kn: the new file
 * @entry: the table entry it was created from
 *
 * Called with kfe_options_rwsem held for reading. No inode exists yet.
 *
 * Return: 0, or -ENOMEM if measuring the content failed for lack of memory.
 */
int kfe_size_init(struct kernfs_node *kn, const struct kfe_entry *entry)
{
	loff_t size = kfe_policy_size(kn, entry);

	if (size < 0)
		return size;
	kn->attr.size = size;
	return 0;
}

/**
 * kfe_size_refresh - recompute a file's size under the current policy
 * @kn: a node; directories are left alone
 * @entry: the table entry @kn was created from, NULL for a directory
 * @unused: for kfe_walk_nodes()
 *
 * Called with kfe_options_rwsem held. If measuring fails for lack of
 * memory the file reports PAGE_SIZE, never a stale exact size.
 *
 * Return: 0.
 */
int kfe_size_refresh(struct kernfs_node *kn, const struct kfe_entry *entry,
		     void *unused)
{
	loff_t size;

	if (!entry)
		return 0;
	mutex_lock(&kfe_size_lock);
	size = kfe_policy_size(kn, entry);
	kfe_size_store(kn, size < 0 ? PAGE_SIZE : size);
	mutex_unlock(&kfe_size_lock);
	return 0;
}

/**
 * kfe_file_changed - tell the layer that a file's content has changed
 * @kn: a file created by kfe_create_dir() or kfe_create_events_root()
 *
 * Under size=exact the file is measured again and its size updated, in
 * the node and in its live inode. Under the other policies the size does
 * not depend on the content and nothing is done.
 *
 * Call it after every change that a reader of @kn would see: from the
 * file's own write op, or for another file the write affects. The caller
 * keeps the file alive (an op of a file in the same directory holds an
 * active reference, which kfe_remove_dir() waits for) and holds no lock
 * that the file's read op takes, since the read op is run here.
 */
void kfe_file_changed(struct kernfs_node *kn)
{
	const struct kfe_entry *entry;

	down_read(&kfe_options_rwsem);
	entry = kfe_file_entry(kn);
	if (entry && kfe_opts.size == KFE_SIZE_EXACT)
		kfe_size_refresh(kn, entry, NULL);
	up_read(&kfe_options_rwsem);
}
EXPORT_SYMBOL_GPL(kfe_file_changed);
