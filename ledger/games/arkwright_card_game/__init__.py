"""Arkwright: The Card Game (Game Brewer): rules engine, component data and greedy bot."""
