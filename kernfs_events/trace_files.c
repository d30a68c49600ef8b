// SPDX-License-Identifier: GPL-2.0
/*
 * The files of the mirrored event directories.
 *
 * Every file runs tracing's own code through the trace_events_fs_*()
 * calls of <linux/tracefs.h>: tracing lists the files a directory can
 * have (from the table eventfs is built from, trace_events_fs_file()),
 * decides which of them an event has and their modes, renders what a
 * read returns and parses what a write applies, so the files, the bytes
 * and the errors are those of tracefs. This file only connects kernfs
 * operations to those calls. A file's size at stat is the length of
 * what the same call renders (size.c), or what tracing tells of it
 * without rendering. Tracing checks lockdown and
 * tracing_is_disabled() inside every call, at open as at each read,
 * write and measurement, as tracefs checks them at open.
 *
 * The operations, ->size() too, run with a kernfs active reference and take
 * event_mutex inside tracing. That is safe because nodes are never
 * removed under event_mutex: see trace_tree.c.
 */
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracefs.h>

#include "kernfs_events.h"
#include "trace.h"

/* Files of an event directory: priv is the struct kfe_event. */

static int kfe_event_open(struct kernfs_open_file *of)
{
	struct kfe_event *ev = of->kn->priv;
	bool truncate = (of->file->f_mode & FMODE_WRITE) &&
			(of->file->f_flags & O_TRUNC);

	return trace_events_fs_event_open(ev->file, of->kn->name, truncate);
}

static int kfe_event_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct kfe_event *ev = kn->priv;

	return trace_events_fs_event_show(ev->file, kn->name, sf);
}

static int kfe_event_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	return kfe_event_show(sf, of->kn);
}

static loff_t kfe_event_len(struct kernfs_node *kn)
{
	struct kfe_event *ev = kn->priv;

	return trace_events_fs_event_size(ev->file, kn->name);
}

/* Rendered only where tracing cannot tell the length (size.c). */
static loff_t kfe_event_size(struct kernfs_node *kn)
{
	return kfe_known_file_size(kn, kfe_event_len, kfe_event_show);
}

/* Length fixed for the event's life (format, id): measured once. */
static loff_t kfe_event_fixed_size(struct kernfs_node *kn)
{
	return kfe_fixed_file_size(kn, kfe_event_show);
}

static ssize_t kfe_event_write(struct kernfs_open_file *of, char *buf,
			       size_t bytes, loff_t off)
{
	struct kfe_event *ev = of->kn->priv;

	return trace_events_fs_event_write(ev->file, of->kn->name, buf, bytes);
}

static const struct kernfs_ops kfe_event_ops = {
	.open		= kfe_event_open,
	.seq_show	= kfe_event_seq_show,
	.write		= kfe_event_write,
	.size		= kfe_event_size,
};

static const struct kernfs_ops kfe_event_fixed_ops = {
	.open		= kfe_event_open,
	.seq_show	= kfe_event_seq_show,
	.write		= kfe_event_write,
	.size		= kfe_event_fixed_size,
};

static int kfe_event_file(const char *name, umode_t *mode, void **data,
			  const struct kernfs_ops **ops,
			  const struct kernfs_ops *file_ops)
{
	struct kfe_event *ev = *data;

	*mode = trace_events_fs_event_mode(ev->file, name);
	*ops = file_ops;
	return *mode ? 1 : 0;
}

static int kfe_event_entry(const char *name, umode_t *mode, void **data,
			   const struct kernfs_ops **ops)
{
	return kfe_event_file(name, mode, data, ops, &kfe_event_ops);
}

static int kfe_event_fixed_entry(const char *name, umode_t *mode, void **data,
				 const struct kernfs_ops **ops)
{
	return kfe_event_file(name, mode, data, ops, &kfe_event_fixed_ops);
}

/*
 * Files of a system directory and of an events directory: priv is the
 * struct kfe_trace_dir of the system or of the instance.
 */

static int kfe_trace_dir_open(struct kernfs_open_file *of)
{
	struct kfe_trace_dir *td = of->kn->priv;

	return trace_events_fs_dir_open(td->instance, td->system);
}

static int kfe_trace_dir_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct kfe_trace_dir *td = kn->priv;

	return trace_events_fs_dir_show(td->instance, td->system, kn->name, sf);
}

static int kfe_trace_dir_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	return kfe_trace_dir_show(sf, of->kn);
}

static loff_t kfe_trace_dir_size(struct kernfs_node *kn)
{
	return kfe_file_size(kn, kfe_trace_dir_show);
}

static loff_t kfe_trace_dir_fixed_size(struct kernfs_node *kn)
{
	return kfe_fixed_file_size(kn, kfe_trace_dir_show);
}

static ssize_t kfe_trace_dir_write(struct kernfs_open_file *of, char *buf,
				   size_t bytes, loff_t off)
{
	struct kfe_trace_dir *td = of->kn->priv;

	return trace_events_fs_dir_write(td->instance, td->system, of->kn->name,
					 buf, bytes);
}

static const struct kernfs_ops kfe_trace_dir_ops = {
	.open		= kfe_trace_dir_open,
	.seq_show	= kfe_trace_dir_seq_show,
	.write		= kfe_trace_dir_write,
	.size		= kfe_trace_dir_size,
};

/* Length fixed (header_event, enable): measured once. */
static const struct kernfs_ops kfe_trace_dir_fixed_ops = {
	.open		= kfe_trace_dir_open,
	.seq_show	= kfe_trace_dir_seq_show,
	.write		= kfe_trace_dir_write,
	.size		= kfe_trace_dir_fixed_size,
};

static int kfe_trace_dir_file(const char *name, umode_t *mode, void **data,
			      const struct kernfs_ops **ops,
			      const struct kernfs_ops *file_ops)
{
	struct kfe_trace_dir *td = *data;

	*mode = trace_events_fs_dir_mode(td->system, name);
	*ops = file_ops;
	return *mode ? 1 : 0;
}

static int kfe_trace_dir_entry(const char *name, umode_t *mode, void **data,
			       const struct kernfs_ops **ops)
{
	return kfe_trace_dir_file(name, mode, data, ops, &kfe_trace_dir_ops);
}

static int kfe_trace_dir_fixed_entry(const char *name, umode_t *mode,
				     void **data, const struct kernfs_ops **ops)
{
	return kfe_trace_dir_file(name, mode, data, ops,
				  &kfe_trace_dir_fixed_ops);
}

struct kfe_trace_files kfe_event_files;
struct kfe_trace_files kfe_system_files;
struct kfe_trace_files kfe_events_files;

/*
 * Fill @files with the files that tracing gives a directory of @kind, in
 * its order: each one's callback is @fixed_cb if the length of its
 * content is fixed, else @cb.
 */
static int kfe_trace_files_get(struct kfe_trace_files *files,
			       enum trace_events_fs_dir kind,
			       kfe_entry_callback cb,
			       kfe_entry_callback fixed_cb)
{
	struct kfe_entry *entries;
	bool fixed_size;
	int i, nr;

	for (nr = 0; trace_events_fs_file(kind, nr, &fixed_size); nr++)
		;
	entries = kcalloc(nr, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		entries[i].name = trace_events_fs_file(kind, i, &fixed_size);
		entries[i].callback = fixed_size ? fixed_cb : cb;
	}
	files->entries = entries;
	files->nr = nr;
	return 0;
}

/**
 * kfe_trace_files_init - learn from tracing which files directories have
 *
 * Return: 0 or -ENOMEM.
 */
int kfe_trace_files_init(void)
{
	int ret;

	ret = kfe_trace_files_get(&kfe_event_files, TRACE_EVENTS_FS_EVENT,
				  kfe_event_entry, kfe_event_fixed_entry);
	if (!ret)
		ret = kfe_trace_files_get(&kfe_system_files,
					  TRACE_EVENTS_FS_SYSTEM,
					  kfe_trace_dir_entry,
					  kfe_trace_dir_fixed_entry);
	if (!ret)
		ret = kfe_trace_files_get(&kfe_events_files,
					  TRACE_EVENTS_FS_EVENTS,
					  kfe_trace_dir_entry,
					  kfe_trace_dir_fixed_entry);
	if (ret)
		kfe_trace_files_exit();
	return ret;
}

/**
 * kfe_trace_files_exit - free what kfe_trace_files_init() made
 */
void kfe_trace_files_exit(void)
{
	kfree(kfe_event_files.entries);
	kfree(kfe_system_files.entries);
	kfree(kfe_events_files.entries);
	kfe_event_files.entries = NULL;
	kfe_system_files.entries = NULL;
	kfe_events_files.entries = NULL;
}
