"""C++, Java and Go (issue 51): their functions and normalised text, found with tree-sitter."""
