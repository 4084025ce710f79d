"""Puzzle design: puzzles drawn in text files (drawings) and what a new card would cost and
earn in play (puzzle_check)."""
