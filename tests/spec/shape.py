"""Spec rows: TODO"""
ROWS = []
