// SPDX-License-Identifier: GPL-2.0
/*
 * The files of the mirrored event directories.
 *
 * Every file runs tracing's own code through the trace_events_fs_*()
 * calls of <linux/tracefs.h>: tracing decides which files a directory
 * has and their modes, renders what a read returns and parses what a
 * write applies, so the bytes and the errors are those of tracefs. This
 * file only connects kernfs operations to those calls.
 *
 * The operations run with a kernfs active reference and take
 * event_mutex inside tracing. That is safe because nodes are never
 * removed under event_mutex: see trace_tree.c.
 */
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracefs.h>

#include "internal.h"
#include "kernfs_events.h"
#include "trace.h"

/*
 * A write can change what other files of the same directory show (a
 * trigger changes enable and hist), and a failed one too (a filter
 * with a syntax error shows the error): measure them all again.
 */
static void kfe_trace_dir_changed(struct kernfs_node *kn,
				  const struct kfe_entry *entries, int nr)
{
	struct kernfs_node *file;
	int i;

	for (i = 0; i < nr; i++) {
		file = kernfs_find_and_get(kn->parent, entries[i].name);
		if (file) {
			kfe_file_changed(file);
			kernfs_put(file);
		}
	}
}

/* Files of an event directory: priv is the struct kfe_event. */

static int kfe_event_open(struct kernfs_open_file *of)
{
	struct kfe_event *ev = of->kn->priv;
	bool truncate = (of->file->f_mode & FMODE_WRITE) &&
			(of->file->f_flags & O_TRUNC);

	return trace_events_fs_event_open(ev->file, of->kn->name, truncate);
}

static int kfe_event_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct kfe_event *ev = of->kn->priv;

	return trace_events_fs_event_show(ev->file, of->kn->name, sf);
}

static ssize_t kfe_event_write(struct kernfs_open_file *of, char *buf,
			       size_t bytes, loff_t off)
{
	struct kfe_event *ev = of->kn->priv;
	ssize_t ret;

	ret = trace_events_fs_event_write(ev->file, of->kn->name, buf, bytes);
	kfe_trace_dir_changed(of->kn, kfe_event_entries, kfe_nr_event_entries);
	return ret;
}

static const struct kernfs_ops kfe_event_ops = {
	.open		= kfe_event_open,
	.seq_show	= kfe_event_seq_show,
	.write		= kfe_event_write,
};

static int kfe_event_entry(const char *name, umode_t *mode, void **data,
			   const struct kernfs_ops **ops)
{
	struct kfe_event *ev = *data;

	*mode = trace_events_fs_event_mode(ev->file, name);
	*ops = &kfe_event_ops;
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

static int kfe_trace_dir_seq_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct kfe_trace_dir *td = of->kn->priv;

	return trace_events_fs_dir_show(td->tr, td->system, of->kn->name, sf);
}

/*
 * A system's filter sets the filter of each of its events, in other
 * directories: under size=exact, measure every file again. Other writes
 * here change only enable files, between "0" and "1", of the same size.
 * No directory is built or removed during the walk, and no lock that
 * the removal of this file waits for is taken.
 */
static void kfe_trace_tree_changed(void)
{
	down_write(&kfe_options_rwsem);
	if (kfe_opts.size == KFE_SIZE_EXACT)
		kfe_walk_nodes(kfe_size_refresh, NULL);
	up_write(&kfe_options_rwsem);
}

static ssize_t kfe_trace_dir_write(struct kernfs_open_file *of, char *buf,
				   size_t bytes, loff_t off)
{
	struct kfe_trace_dir *td = of->kn->priv;
	ssize_t ret;

	ret = trace_events_fs_dir_write(td->tr, td->system, of->kn->name,
					buf, bytes);
	if (!strcmp(of->kn->name, "filter"))
		kfe_trace_tree_changed();
	return ret;
}

static const struct kernfs_ops kfe_trace_dir_ops = {
	.seq_show	= kfe_trace_dir_seq_show,
	.write		= kfe_trace_dir_write,
};

static int kfe_trace_dir_entry(const char *name, umode_t *mode, void **data,
			       const struct kernfs_ops **ops)
{
	struct kfe_trace_dir *td = *data;

	*mode = trace_events_fs_dir_mode(td->system, name);
	*ops = &kfe_trace_dir_ops;
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
