// SPDX-License-Identifier: GPL-2.0
/*
 * Mount options: uid=, gid= and mode= with tracefs's meaning, and size=.
 *
 * kernfs has one superblock per root, so every mount of kernfs_events
 * shares one superblock and one set of options, as tracefs does. The
 * first mount (a new superblock) applies every option, the defaults for
 * those not given; a remount, or a second mount while one exists,
 * applies only the options it gives. Options are parsed into the
 * fs_context first and applied only once all of them are valid, so a
 * bad option changes nothing.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/kernfs.h>
#include <linux/seq_file.h>

#include "internal.h"
#include "kernfs_events.h"

/*
 * The options in effect; the defaults are set when the module loads.
 * Written by kfe_apply_options(), under the superblock's s_umount and
 * this seqlock; show_options() runs under namespace_sem, where no lock
 * of this module may be taken, and reads a consistent copy under it.
 */
struct kfe_options kfe_opts;
static DEFINE_SEQLOCK(kfe_opts_seq);

enum { KFE_PARAM_UID, KFE_PARAM_GID, KFE_PARAM_MODE, KFE_PARAM_SIZE };

static const struct constant_table kfe_size_names[] = {
	{ "exact",	KFE_SIZE_EXACT },
	{ "page",	KFE_SIZE_PAGE },
	{ "zero",	KFE_SIZE_ZERO },
	{}
};

const struct fs_parameter_spec kfe_fs_parameters[] = {
	fsparam_uid("uid",		KFE_PARAM_UID),
	fsparam_gid("gid",		KFE_PARAM_GID),
	fsparam_u32oct("mode",		KFE_PARAM_MODE),
	fsparam_enum("size",		KFE_PARAM_SIZE, kfe_size_names),
	{}
};

/**
 * kfe_options_init - the default options
 * @opts: filled with root ownership, mode 0700 and size=exact
 */
void kfe_options_init(struct kfe_options *opts)
{
	opts->uid = GLOBAL_ROOT_UID;
	opts->gid = GLOBAL_ROOT_GID;
	opts->mode = KFE_DEFAULT_MODE;
	opts->size = KFE_SIZE_EXACT;
}

/**
 * kfe_parse_param - parse one mount option into the fs_context
 * @fc: the mount or remount's context
 * @param: the option
 *
 * Return: 0; -ENOPARAM for an option that is not ours, so that the VFS
 * handles "source" and reports any other; -EINVAL with a message in the
 * fs_context log for a bad value.
 */
int kfe_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct kfe_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, kfe_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case KFE_PARAM_UID:
		ctx->opts.uid = result.uid;
		ctx->given |= KFE_OPT_UID;
		break;
	case KFE_PARAM_GID:
		ctx->opts.gid = result.gid;
		ctx->given |= KFE_OPT_GID;
		break;
	case KFE_PARAM_MODE:
		if (result.uint_32 & ~S_IALLUGO)
			return invalfc(fc, "Invalid mode '%s'", param->string);
		ctx->opts.mode = result.uint_32;
		ctx->given |= KFE_OPT_MODE;
		break;
	case KFE_PARAM_SIZE:
		ctx->opts.size = result.uint_32;
		ctx->given |= KFE_OPT_SIZE;
		break;
	}
	return 0;
}

/**
 * kfe_apply_options - make a mount's options the ones in effect
 * @ctx: the parsed options
 * @sb: the superblock mounted or remounted, its s_umount held
 * @new_sb: a new superblock: options not given take their defaults
 *
 * uid= and gid= become the owner of every node of the root, overriding
 * any chown by users, through kernfs_root_set_owner(): nothing is
 * allocated per node, and nodes made later get the owner too. mode=
 * sets the root directory's permissions, as in tracefs. size= takes
 * effect at the next stat of each file. An option not applied leaves
 * users' chmod and chown in place.
 *
 * Applies all or nothing: the one allocation, the root directory's
 * iattrs for mode=, is made before anything changes. The superblock's
 * s_umount, held by every mount and remount of the one superblock,
 * orders the callers.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
int kfe_apply_options(const struct kfe_fs_context *ctx,
		      struct super_block *sb, bool new_sb)
{
	unsigned int apply = new_sb ? ~0U : ctx->given;
	struct kernfs_node *root = kfe_root_node();
	struct kfe_options opts = kfe_opts;
	struct iattr ia = {};
	int ret;

	lockdep_assert_held_write(&sb->s_umount);
	if (apply & KFE_OPT_MODE) {
		ret = kernfs_setattr(root, &(struct iattr){});
		if (ret)
			return ret;
		opts.mode = ctx->opts.mode;
	}
	if (apply & KFE_OPT_UID) {
		opts.uid = ctx->opts.uid;
		ia.ia_valid |= ATTR_UID;
		ia.ia_uid = opts.uid;
	}
	if (apply & KFE_OPT_GID) {
		opts.gid = ctx->opts.gid;
		ia.ia_valid |= ATTR_GID;
		ia.ia_gid = opts.gid;
	}
	if (apply & KFE_OPT_SIZE)
		opts.size = ctx->opts.size;

	/* Nothing below can fail. */
	write_seqlock(&kfe_opts_seq);
	kfe_opts.uid = opts.uid;
	kfe_opts.gid = opts.gid;
	kfe_opts.mode = opts.mode;
	WRITE_ONCE(kfe_opts.size, opts.size);
	write_sequnlock(&kfe_opts_seq);
	if (ia.ia_valid)
		kernfs_root_set_owner(kfe_root, &ia);
	if (apply & KFE_OPT_MODE) {
		ia.ia_valid = ATTR_MODE;
		ia.ia_mode = S_IFDIR | opts.mode;
		WARN_ON(kernfs_setattr(root, &ia));
	}
	return 0;
}

/**
 * kfe_show_options - the options in effect, for /proc/mounts
 * @sf: the seq_file of /proc/mounts
 * @root: the kernfs root (there is one)
 *
 * Shows the options that differ from the defaults, as tracefs does.
 * Called under namespace_sem: takes no lock, but copies the options
 * under kfe_opts_seq, again if a remount changed them meanwhile.
 *
 * Return: 0.
 */
int kfe_show_options(struct seq_file *sf, struct kernfs_root *root)
{
	struct kfe_options opts;
	unsigned int seq;

	do {
		seq = read_seqbegin(&kfe_opts_seq);
		opts = kfe_opts;
	} while (read_seqretry(&kfe_opts_seq, seq));

	if (!uid_eq(opts.uid, GLOBAL_ROOT_UID))
		seq_printf(sf, ",uid=%u",
			   from_kuid_munged(&init_user_ns, opts.uid));
	if (!gid_eq(opts.gid, GLOBAL_ROOT_GID))
		seq_printf(sf, ",gid=%u",
			   from_kgid_munged(&init_user_ns, opts.gid));
	if (opts.mode != KFE_DEFAULT_MODE)
		seq_printf(sf, ",mode=%o", opts.mode);
	if (opts.size != KFE_SIZE_EXACT)
		seq_printf(sf, ",size=%s", kfe_size_names[opts.size].name);
	return 0;
}
