"""osdt"""
