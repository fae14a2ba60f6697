ALTER TABLE `dekupe_attempts` ADD `error_code` text;--> statement-breakpoint
ALTER TABLE `products` ADD `dekupe_error_code` text;--> statement-breakpoint
-- Failed attempts recorded before the codes existed get theirs from the messages this version writes.
UPDATE products SET dekupe_error_code = CASE
  WHEN dekupe_error = 'The original image is missing from storage.' THEN 'image_missing'
  WHEN dekupe_error LIKE 'Background removal did not finish:%' THEN 'did_not_finish'
  WHEN dekupe_error LIKE 'The image kept changing%' THEN 'image_changing'
  WHEN dekupe_error LIKE 'Background removal failed: No product found%' OR dekupe_error LIKE 'Background removal failed: No object found under the hint%' THEN 'no_subject'
  WHEN dekupe_error LIKE 'Background removal failed: The cut-out came out empty%' THEN 'empty_matte'
  ELSE 'removal_failed'
END WHERE dekupe_error IS NOT NULL;--> statement-breakpoint
UPDATE dekupe_attempts SET error_code = CASE
  WHEN error = 'The original image is missing from storage.' THEN 'image_missing'
  WHEN error LIKE 'Background removal did not finish:%' THEN 'did_not_finish'
  WHEN error LIKE 'The image kept changing%' THEN 'image_changing'
  WHEN error LIKE 'Background removal failed: No product found%' OR error LIKE 'Background removal failed: No object found under the hint%' THEN 'no_subject'
  WHEN error LIKE 'Background removal failed: The cut-out came out empty%' THEN 'empty_matte'
  ELSE 'removal_failed'
END WHERE error IS NOT NULL;
