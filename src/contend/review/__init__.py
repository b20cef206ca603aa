"""`contend review`: what is reviewed, against what spec, under which lock, in which worktrees."""
