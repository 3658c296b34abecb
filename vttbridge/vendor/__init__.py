"""Third-party code kept in the tree, each package with its licence and the account of where it
came from and what was changed (``README.md`` beside it). Below the three layers: it imports
nothing of ours."""
