/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernfs_events: the trace-event hierarchy served from kernfs nodes.
 *
 * The interface that other modules (event sources, the KUnit suites)
 * call. It is modelled on eventfs's: a directory is described by a
 * static table of entries, and a callback decides for each entry whether
 * the file exists, its mode, its kernfs_ops and its private data.
 *
 * Unlike eventfs, every file is a real kernfs_node, created with its
 * directory, or for a lazy directory when someone first looks into it.
 * A directory and all its files are built while deactivated and appear
 * together, so no reader ever sees half a directory. Removal drains the operations in
 * flight (kernfs_remove()); files still open then return -ENODEV.
 *
 * Documentation/kernfs_events/core.rst describes the model, the size
 * policies and the locking rules.
 */
#ifndef KERNFS_EVENTS_H
#define KERNFS_EVENTS_H

#include <linux/kernfs.h>

struct file_system_type;
struct kfe_dir;
struct seq_file;

/**
 * typedef kfe_entry_callback - decide whether and how an entry exists
 * @name: the entry's name, from its &struct kfe_entry
 * @mode: in: 0444; out: the file's permission bits (S_IFREG is added)
 * @data: in: the directory's data; out: the file's kernfs_node priv
 * @ops: out: the file's kernfs_ops; must be set when returning > 0. A
 *	readable file's ops must have a ->size() method that returns
 *	kfe_file_size(), so that st_size follows the size= policy
 *
 * Called once per entry while the directory is being built, before it
 * is visible. It may sleep, and must not call this API.
 *
 * Return: > 0 to create the file, 0 to leave it out, or a negative errno
 * to fail the whole directory's creation.
 */
typedef int (*kfe_entry_callback)(const char *name, umode_t *mode,
				  void **data, const struct kernfs_ops **ops);

/**
 * typedef kfe_show_fn - render the whole content of a file
 * @sf: receives the content, as a read of the file from offset 0 to EOF
 *	returns it
 * @kn: the file
 *
 * A file's seq_show() and its kfe_file_size() call the same function,
 * so that the size can never disagree with the content. It must not
 * use @sf->private or @sf->file: kfe_file_size() runs it with no open
 * file.
 *
 * Return: 0, or a negative errno.
 */
typedef int (*kfe_show_fn)(struct seq_file *sf, struct kernfs_node *kn);

/**
 * typedef kfe_len_fn - tell the length of a file's content without rendering it
 * @kn: the file
 *
 * Runs as a &kfe_show_fn does, with the active reference kernfs holds
 * during kernfs_ops->size().
 *
 * Return: the length of what the file's &kfe_show_fn would render now,
 * -ENODATA if only rendering it tells, or another negative errno.
 */
typedef loff_t (*kfe_len_fn)(struct kernfs_node *kn);

/**
 * struct kfe_subdirs - the subdirectories of a lazy directory
 * @create: creates them. Called on the first lookup or readdir of the
 *	directory (@dir, its files made already; @data, the data given when
 *	it was created), before anyone sees its content, and again on the
 *	first one after kfe_dir_reclaim() gave its nodes back. It creates
 *	them with kfe_create_lazy_dir() or kfe_create_dir(), may sleep, and
 *	must not call kfe_dir_get_file() or look into a lazy directory. Returns
 *	0, or a negative errno to fail the access; what @dir got is then
 *	removed, and the next access tries again.
 * @count: how many @create would make now, from @data. stat() of the
 *	directory reports its link count from it, so that listing the
 *	directory above does not populate it. May sleep; must not call
 *	this API.
 * @reclaimed: optional: kfe_dir_reclaim() gave back the nodes of @dir and
 *	freed the directories @create made, with kfe_tree_lock held, in
 *	memory reclaim: forget them; must not sleep or allocate.
 */
struct kfe_subdirs {
	int (*create)(struct kfe_dir *dir, void *data);
	unsigned int (*count)(void *data);
	void (*reclaimed)(struct kfe_dir *dir, void *data);
};

/**
 * struct kfe_entry - one file a directory may contain
 * @name: the file's name; must stay valid while the directory exists
 * @callback: decides whether the file exists, and its mode, ops and data
 */
struct kfe_entry {
	const char		*name;
	kfe_entry_callback	callback;
};

struct kernfs_node *kfe_root_node(void);
struct file_system_type *kfe_filesystem(void);

struct kfe_dir *kfe_create_events_root(const char *name,
				       struct kernfs_node *parent,
				       const struct kfe_entry *entries,
				       int nr_entries, void *data);
struct kfe_dir *kfe_create_dir(const char *name, struct kfe_dir *parent,
			       const struct kfe_entry *entries,
			       int nr_entries, void *data);
struct kfe_dir *kfe_create_lazy_events_root(const char *name,
					    struct kernfs_node *parent,
					    const struct kfe_entry *entries,
					    int nr_entries, void *data,
					    const struct kfe_subdirs *subdirs,
					    u32 ino);
struct kfe_dir *kfe_create_lazy_dir(const char *name, struct kfe_dir *parent,
				    const struct kfe_entry *entries,
				    int nr_entries, void *data,
				    const struct kfe_subdirs *subdirs, u32 ino);
void kfe_remove_dir(struct kfe_dir *dir);
struct kernfs_node *kfe_dir_node(struct kfe_dir *dir);
struct kernfs_node *kfe_dir_get_file(struct kfe_dir *dir, const char *name);
unsigned long kfe_dir_reclaim(struct kfe_dir *dir);
loff_t kfe_file_size(struct kernfs_node *kn, kfe_show_fn show);
loff_t kfe_fixed_file_size(struct kernfs_node *kn, kfe_show_fn render);
loff_t kfe_known_file_size(struct kernfs_node *kn, kfe_len_fn len,
			   kfe_show_fn show);

#endif /* KERNFS_EVENTS_H */
