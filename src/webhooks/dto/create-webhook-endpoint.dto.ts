import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, IsUrl, Length } from 'class-validator';
import { IsOmittable } from '../../common/validation';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    description: 'Where events are POSTed: an https URL.',
    maxLength: 2048,
    example: 'https://shop.example.com/hooks/gatehouse',
  })
  @IsString()
  @Length(1, 2048)
  @IsUrl({ protocols: ['https'], require_protocol: true, require_tld: true, disallow_auth: true }, { message: 'url must be an https URL' })
  readonly url!: string;

  @ApiPropertyOptional({ description: 'A note to recognise the endpoint by.', maxLength: 200, example: 'Order service' })
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  readonly description?: string;
}
