# SPDX-License-Identifier: MIT
# The headers' plain C comments as Doxygen reads them (docs/Doxyfile's
# INPUT_FILTER), line for line: a header's opening comment documents the
# file, a comment on a line of its own the declaration below it, and one
# after code the member on its left.
s|^/\* \(wasync[/a-z0-9_]*\.h\) - |/** @file \1 |
s|^\([ \t]*\)/\* |\1/** |
s|^\([ \t]*\)/\*$|\1/**|
s|\([^ \t/].*\)/\* |\1/**< |
