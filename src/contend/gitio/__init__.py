"""Git access: running git safely and turning a diff into `FileChange`s."""
