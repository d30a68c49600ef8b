// SPDX-License-Identifier: GPL-2.0
/*
 * File sizes: what st_size reports under the mount's size= policy.
 *
 * Every readable file of this layer has a kernfs_ops->size() method
 * (patches/0006), which kernfs calls at each stat with an active
 * reference held, as it calls a read. Under size=exact the method
 * renders the file's content with the same code its read uses and
 * reports the length: whoever changed the content (a write on this
 * mount, tracefs, tracing itself), stat tells what a read to EOF would
 * return at that moment. Nothing is measured when content changes, and
 * nothing is stored but the length of content whose length never
 * changes (kfe_fixed_file_size()): no walk of the tree, no live inode to
 * update, and no lock of this layer is held while the content is
 * rendered.
 *
 * The one window left is content that changes between a stat and the
 * read that follows it, a histogram while events arrive: Documentation/
 * kernfs_events/core.rst says what tar then does.
 */
#include <linux/kernfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "kernfs_events.h"

/* Most files fit: one line of enable, id or filter. */
#define KFE_SIZE_STACK_BUF	128

/* Render @kn into @sf, whose buffer @buf holds @size bytes. */
static loff_t kfe_render_len(struct seq_file *sf, char *buf, size_t size,
			     struct kernfs_node *kn, kfe_show_fn show)
{
	int ret;

	sf->buf = buf;
	sf->size = size;
	sf->count = 0;
	ret = show(sf, kn);
	if (ret < 0)
		return ret;
	return seq_has_overflowed(sf) ? -EOVERFLOW : sf->count;
}

/*
 * The length of what @show renders for @kn: into a buffer on the stack
 * first, then into one that doubles until the content fits, as
 * seq_read_iter() grows its buffer for a single record.
 */
static loff_t kfe_content_len(struct kernfs_node *kn, kfe_show_fn show)
{
	char stack_buf[KFE_SIZE_STACK_BUF];
	struct seq_file sf = {};
	size_t size;
	loff_t len;
	char *buf;

	len = kfe_render_len(&sf, stack_buf, sizeof(stack_buf), kn, show);
	for (size = PAGE_SIZE; len == -EOVERFLOW; size *= 2) {
		if (size > INT_MAX)	/* kvmalloc()'s limit */
			return -EFBIG;
		buf = kvmalloc(size, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		len = kfe_render_len(&sf, buf, size, kn, show);
		kvfree(buf);
	}
	return len;
}

/**
 * kfe_file_size - the st_size of a file under the mount's size= policy
 * @kn: the file
 * @show: renders the file's whole content as a read of it returns it,
 *	or NULL if the content cannot be rendered in one call (a seq_file
 *	iterator)
 *
 * The body of a file's kernfs_ops->size() method. Under size=exact it
 * returns the length of what @show renders now, or PAGE_SIZE without
 * @show; under size=page PAGE_SIZE; under size=zero 0. @show runs in
 * the caller's context, with the active reference that kernfs holds
 * during ->size(), and may sleep.
 *
 * Return: the size, or @show's negative errno (kernfs then reports the
 * size given at creation, 0).
 */
loff_t kfe_file_size(struct kernfs_node *kn, kfe_show_fn show)
{
	switch (READ_ONCE(kfe_opts.size)) {
	case KFE_SIZE_ZERO:
		return 0;
	case KFE_SIZE_PAGE:
		return PAGE_SIZE;
	case KFE_SIZE_EXACT:
		break;
	}
	return show ? kfe_content_len(kn, show) : PAGE_SIZE;
}
EXPORT_SYMBOL_GPL(kfe_file_size);

/**
 * kfe_known_file_size - kfe_file_size() for content whose length its
 *	owner can often tell without rendering it
 * @kn: the file
 * @len: tells the length of @kn's content now, or -ENODATA
 * @show: renders the file's whole content, as for kfe_file_size()
 *
 * Under size=exact @len is asked first, and @show runs only if @len
 * returns -ENODATA: the files of an event that nobody set up (no filter,
 * no triggers) are not rendered at each stat. Under the other policies
 * as kfe_file_size().
 *
 * Return: the size, or @len's or @show's negative errno.
 */
loff_t kfe_known_file_size(struct kernfs_node *kn, kfe_len_fn len,
			   kfe_show_fn show)
{
	loff_t ret;

	if (READ_ONCE(kfe_opts.size) == KFE_SIZE_EXACT) {
		ret = len(kn);
		if (ret != -ENODATA)
			return ret;
	}
	return kfe_file_size(kn, show);
}
EXPORT_SYMBOL_GPL(kfe_known_file_size);

/**
 * kfe_fixed_file_size - kfe_file_size() for content of a fixed length
 * @kn: the file
 * @render: renders the file's whole content, as for kfe_file_size()
 *
 * For a file whose content keeps its length while the file exists (an
 * event's format or id, or a state shown as one character): under
 * size=exact the content is rendered at the first stat only, and its
 * length is kept in @kn->attr.size, which kernfs also gives the inodes
 * it makes later. Content of length 0 is rendered again at each stat.
 *
 * Return: the size, or @render's negative errno.
 */
loff_t kfe_fixed_file_size(struct kernfs_node *kn, kfe_show_fn render)
{
	loff_t len;

	if (READ_ONCE(kfe_opts.size) != KFE_SIZE_EXACT)
		return kfe_file_size(kn, render);
	len = READ_ONCE(kn->attr.size);
	if (len)
		return len;
	len = kfe_content_len(kn, render);
	if (len > 0)
		WRITE_ONCE(kn->attr.size, len);
	return len;
}
EXPORT_SYMBOL_GPL(kfe_fixed_file_size);
