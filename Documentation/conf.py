# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of the kernfs guide. Built by "make htmldocs",
# which passes the kernel source tree in KFE_SRC: the kernel-doc
# extension and scripts/kernel-doc come from there, and so do the
# kernel-doc comments the reference renders.
import os
import sys

kernel_src = os.environ.get('KFE_SRC')
if not kernel_src or not os.path.isdir(kernel_src):
    sys.exit('conf.py: set KFE_SRC to the kernel source tree (make htmldocs does)')

sys.path.insert(0, os.path.join(kernel_src, 'Documentation', 'sphinx'))
repo_top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

project = 'The kernfs guide'
author = 'kernfs_events developers'
copyright = '2026, ' + author
release = '6.12'

extensions = ['kerneldoc', 'sphinx.ext.graphviz']

kerneldoc_bin = os.path.join(kernel_src, 'scripts', 'kernel-doc')
kerneldoc_srctree = kernel_src
kerneldoc_verbosity = 0

# Kernel attributes the C domain must skip, as the kernel's conf.py does.
c_id_attributes = ['__init', '__printf', '__must_check', '__user']

# Every cross-reference in the text must resolve. Types in signatures
# that the guide does not document (size_t, struct dentry, ...) may not.
nitpicky = True
nitpick_ignore_regex = [('c:identifier', '.*')]

primary_domain = 'c'
highlight_language = 'none'
exclude_patterns = ['output']

html_theme = 'furo'
html_title = 'The kernfs guide'
html_static_path = ['_static']
html_css_files = ['tables.css']
html_last_updated_fmt = None
html_show_sourcelink = False

graphviz_output_format = 'svg'


def setup(app):
    """Let kernel-doc:: name files of this repository as well as the kernel's."""
    import kerneldoc

    class KernelDoc(kerneldoc.KernelDocDirective):
        def run(self):
            path = os.path.join(repo_top, self.arguments[0])
            if os.path.isfile(path):
                self.arguments[0] = os.path.relpath(path, kernel_src)
            return super().run()

    app.add_directive('kernel-doc', KernelDoc, override=True)
