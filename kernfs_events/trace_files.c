// SPDX-License-Identifier: GPL-2.0
/*
 * The files of the mirrored event directories.
 *
 * Every file runs tracing's own code through the trace_events_fs_*()
 * calls of <linux/tracefs.h>: tracing decides which files a directory
 * has and their modes, renders what a read returns and parses what a
 * write applies, so the bytes and the errors are those of tracefs. This
 * file only connects kernfs operations to those calls. A file's size at
 * stat is the length of what the same call renders (size.c). Tracing
 * checks lockdown and tracing_is_disabled() inside every call, at open
 * as at each read, write and measurement, as tracefs checks them at
 * open.
 *
 * The operations, ->size() too, run with a kernfs active reference and take
 * event_mutex inside tracing. That is safe because nodes are never
 * removed under event_mutex: see trace_tree.c.
 */
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/seq_file.h>
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

static loff_t kfe_event_size(struct kernfs_node *kn)
{
	return kfe_file_size(kn, kfe_event_show);
}

/* format and id are fixed for the event's life: measured once. */
static loff_t kfe_event_static_size(struct kernfs_node *kn)
{
	return kfe_static_file_size(kn, kfe_event_show);
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

static const struct kernfs_ops kfe_event_static_ops = {
	.open		= kfe_event_open,
	.seq_show	= kfe_event_seq_show,
	.size		= kfe_event_static_size,
};

/*
 * Whether a file's content is fixed for the life of its directory. Not
 * header_page: it follows the ring buffer's sub-buffer size.
 */
static bool kfe_static_content(const char *name)
{
	return !strcmp(name, "format") || !strcmp(name, "id") ||
	       !strcmp(name, "header_event");
}

static int kfe_event_entry(const char *name, umode_t *mode, void **data,
			   const struct kernfs_ops **ops)
{
	struct kfe_event *ev = *data;

	*mode = trace_events_fs_event_mode(ev->file, name);
	*ops = kfe_static_content(name) ? &kfe_event_static_ops : &kfe_event_ops;
	return *mode ? 1 : 0;
}

/* The files tracefs gives an event directory, in its order. */
const struct kfe_entry kfe_event_entries[] = {
	{ .name = "enable",	.callback = kfe_event_entry },
	{ .name = "filter",	.callback = kfe_event_entry },
	{ .name = "trigger",	.callback = kfe_event_entry },
	{ .name = "format",	.callback = kfe_event_entry },
	{ .name = "id",		.callback = kfe_event_entry },
	{ .name = "hist",	.callback = kfe_event_entry },
};

const int kfe_nr_event_entries = ARRAY_SIZE(kfe_event_entries);

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

static loff_t kfe_trace_dir_static_size(struct kernfs_node *kn)
{
	return kfe_static_file_size(kn, kfe_trace_dir_show);
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

/* header_event is fixed. */
static const struct kernfs_ops kfe_trace_dir_static_ops = {
	.open		= kfe_trace_dir_open,
	.seq_show	= kfe_trace_dir_seq_show,
	.size		= kfe_trace_dir_static_size,
};

static int kfe_trace_dir_entry(const char *name, umode_t *mode, void **data,
			       const struct kernfs_ops **ops)
{
	struct kfe_trace_dir *td = *data;

	*mode = trace_events_fs_dir_mode(td->system, name);
	*ops = kfe_static_content(name) ? &kfe_trace_dir_static_ops :
					  &kfe_trace_dir_ops;
	return *mode ? 1 : 0;
}

const struct kfe_entry kfe_system_entries[] = {
	{ .name = "filter",	.callback = kfe_trace_dir_entry },
	{ .name = "enable",	.callback = kfe_trace_dir_entry },
};

const int kfe_nr_system_entries = ARRAY_SIZE(kfe_system_entries);

const struct kfe_entry kfe_events_entries[] = {
	{ .name = "enable",		.callback = kfe_trace_dir_entry },
	{ .name = "header_page",	.callback = kfe_trace_dir_entry },
	{ .name = "header_event",	.callback = kfe_trace_dir_entry },
};

const int kfe_nr_events_entries = ARRAY_SIZE(kfe_events_entries);
