// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the kernfs_events filesystem type: mounting, the root
 * directory, and deferred activation of new nodes.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>

#include "../../kernfs_events/kernfs_events.h"

struct kfe_mount_test {
	struct vfsmount *mnt;
};

static int kfe_mount_test_init(struct kunit *test)
{
	struct kfe_mount_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->mnt = kern_mount(kfe_filesystem());
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->mnt));
	test->priv = t;
	return 0;
}

static void kfe_mount_test_exit(struct kunit *test)
{
	struct kfe_mount_test *t = test->priv;

	kern_unmount(t->mnt);
}

/* Look @name up in the mount's root directory through the VFS. */
static struct dentry *kfe_mount_test_lookup(struct kunit *test,
					    const char *name)
{
	struct kfe_mount_test *t = test->priv;

	return lookup_positive_unlocked(name, t->mnt->mnt_root, strlen(name));
}

static void kfe_mount_test_root_is_kernfs_root(struct kunit *test)
{
	struct kfe_mount_test *t = test->priv;
	struct inode *inode = d_inode(t->mnt->mnt_root);

	KUNIT_EXPECT_TRUE(test, S_ISDIR(inode->i_mode));
	KUNIT_EXPECT_EQ(test, inode->i_ino, kernfs_ino(kfe_root_node()));
	KUNIT_EXPECT_STREQ(test, t->mnt->mnt_sb->s_type->name, "kernfs_events");
}

static void kfe_mount_test_new_dir_hidden_until_activated(struct kunit *test)
{
	struct kernfs_node *kn;
	struct dentry *dentry;

	kn = kernfs_create_dir(kfe_root_node(), "kfe_mount_test", 0755, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kn));

	dentry = kfe_mount_test_lookup(test, "kfe_mount_test");
	KUNIT_EXPECT_EQ(test, PTR_ERR(dentry), -ENOENT);

	kernfs_activate(kn);
	dentry = kfe_mount_test_lookup(test, "kfe_mount_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(dentry));
	KUNIT_EXPECT_EQ(test, d_inode(dentry)->i_ino, kernfs_ino(kn));
	dput(dentry);

	kernfs_remove(kn);
	dentry = kfe_mount_test_lookup(test, "kfe_mount_test");
	KUNIT_EXPECT_EQ(test, PTR_ERR(dentry), -ENOENT);
}

static struct kunit_case kfe_mount_test_cases[] = {
	KUNIT_CASE(kfe_mount_test_root_is_kernfs_root),
	KUNIT_CASE(kfe_mount_test_new_dir_hidden_until_activated),
	{}
};

static struct kunit_suite kfe_mount_test_suite = {
	.name = "kfe_mount",
	.init = kfe_mount_test_init,
	.exit = kfe_mount_test_exit,
	.test_cases = kfe_mount_test_cases,
};

kunit_test_suite(kfe_mount_test_suite);

MODULE_DESCRIPTION("KUnit tests for the kernfs_events filesystem type");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
