// SPDX-License-Identifier: GPL-2.0
/*
 * More kernfs: what a write method is given, and what kernfs files lack.
 *
 * Every write() to "sink" calls ->write once, with the bytes and the
 * offset @off the VFS passes: the file position, or pwrite()'s offset.
 * kernfs does nothing else with @off; the method decides what it means.
 * Here it means nothing: the sink logs each call in "log" and keeps the
 * last one, which a read of "sink" returns. "sink" preallocates its
 * buffer, so a write never fails for want of memory.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "kfe_tut_fs.h"

#define KFE_TUT_SINK_MAX	64	/* the longest write accepted */
#define KFE_TUT_SINK_LOG	16	/* the calls the log remembers */

struct kfe_tut_sink_call {
	size_t bytes;
	loff_t off;
	char text[KFE_TUT_SINK_MAX + 1];
};

static DEFINE_MUTEX(kfe_tut_sink_mutex);	/* protects the two below */
static struct kfe_tut_sink_call kfe_tut_sink_calls[KFE_TUT_SINK_LOG];
static unsigned int kfe_tut_sink_nr;		/* calls logged so far */

static ssize_t kfe_tut_sink_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	struct kfe_tut_sink_call *c;

	mutex_lock(&kfe_tut_sink_mutex);
	c = &kfe_tut_sink_calls[kfe_tut_sink_nr++ % KFE_TUT_SINK_LOG];
	c->bytes = bytes;
	c->off = off;
	/* kernfs NUL-terminates @buf; atomic_write_len bounds @bytes. */
	strscpy(c->text, buf, sizeof(c->text));
	mutex_unlock(&kfe_tut_sink_mutex);
	return bytes;	/* kernfs advances the position by what we return */
}

/*
 * With ->prealloc, @buf is the open file's buffer of atomic_write_len + 1
 * bytes, but @len is what the reader asked for, up to PAGE_SIZE: the
 * method must bound the copy by the buffer, not by @len.
 */
static ssize_t kfe_tut_sink_read(struct kernfs_open_file *of, char *buf,
				 size_t len, loff_t off)
{
	struct kfe_tut_sink_call *c;
	size_t n = 0;

	mutex_lock(&kfe_tut_sink_mutex);
	if (kfe_tut_sink_nr) {
		c = &kfe_tut_sink_calls[(kfe_tut_sink_nr - 1) %
					KFE_TUT_SINK_LOG];
		n = strlen(c->text);	/* at most KFE_TUT_SINK_MAX */
	}
	if (off >= n) {
		n = 0;			/* end of file */
	} else {
		n = min(len, n - (size_t)off);
		memcpy(buf, c->text + off, n);
	}
	mutex_unlock(&kfe_tut_sink_mutex);
	return n;
}

static const struct kernfs_ops kfe_tut_sink_ops = {
	.read			= kfe_tut_sink_read,
	.write			= kfe_tut_sink_write,
	.atomic_write_len	= KFE_TUT_SINK_MAX,
	.prealloc		= true,
};

static int kfe_tut_log_show(struct seq_file *sf, void *v)
{
	struct kfe_tut_sink_call *c;
	unsigned int i, first;

	mutex_lock(&kfe_tut_sink_mutex);
	first = kfe_tut_sink_nr > KFE_TUT_SINK_LOG ?
		kfe_tut_sink_nr - KFE_TUT_SINK_LOG : 0;
	for (i = first; i < kfe_tut_sink_nr; i++) {
		c = &kfe_tut_sink_calls[i % KFE_TUT_SINK_LOG];
		seq_printf(sf, "write(%zu bytes, off %lld): %s", c->bytes,
			   c->off, c->text);
		if (!strchr(c->text, '\n'))
			seq_putc(sf, '\n');
	}
	mutex_unlock(&kfe_tut_sink_mutex);
	return 0;
}

static const struct kernfs_ops kfe_tut_log_ops = {
	.seq_show	= kfe_tut_log_show,
};

static int kfe_tut_sink_populate(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	kn = __kernfs_create_file(top, "sink", 0600, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_sink_ops,
				  NULL, NULL, NULL);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kn = __kernfs_create_file(top, "log", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_log_ops,
				  NULL, NULL, NULL);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_sink_fs = {
	.name		= "kfe_tut_sink",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_sink_populate,
};

static int __init kfe_tut_sink_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_sink_fs);
}

static void __exit kfe_tut_sink_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_sink_fs);
}

module_init(kfe_tut_sink_init);
module_exit(kfe_tut_sink_exit);

MODULE_DESCRIPTION("kernfs tutorial: write offsets and what kernfs lacks");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
