"""corels"""
