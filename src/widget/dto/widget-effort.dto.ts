import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class WidgetEffortQuery {
  @ApiProperty({ description: 'The widget key (of your account).', format: 'uuid' })
  @IsUUID()
  readonly apiKeyId!: string;
}

/** What a widget key's proof of work costs people and bots now (docs/API.md, "Challenge difficulty"). */
export class WidgetEffortDto {
  @ApiProperty({ description: 'The widget key these figures are of.', format: 'uuid' })
  readonly apiKeyId!: string;

  @ApiProperty({ description: 'Start of the solve times’ range: 24 hours before `to`.', type: String, format: 'date-time' })
  readonly from!: string;

  @ApiProperty({ description: 'End of the range: now.', type: String, format: 'date-time' })
  readonly to!: string;

  @ApiProperty({
    description: 'The difficulty in force: a visitor’s median wait, ms (the key’s own, else its plan’s).',
    type: 'integer',
    enum: [250, 500, 1000, 2000],
  })
  readonly waitMs!: number;

  @ApiProperty({ description: 'Whether waitMs is the plan’s default (the key has none of its own).' })
  readonly waitFromPlan!: boolean;

  @ApiProperty({ description: 'Whether a surge raised this key’s challenges in the last 5 minutes (on any instance).' })
  readonly surge!: boolean;

  @ApiProperty({ description: 'Solutions exchanged for a nonce in the range.', type: 'integer' })
  readonly solves!: number;

  @ApiProperty({
    description: 'Median time from issuing a challenge to the exchange of its solution, ms (within about ±20 %); null without solves.',
    type: 'integer',
    nullable: true,
  })
  readonly solveMsMedian!: number | null;

  @ApiProperty({ description: 'The 90th percentile of the same, ms; null without solves.', type: 'integer', nullable: true })
  readonly solveMsP90!: number | null;

  @ApiProperty({
    description:
      'What a CPU bot pays for 1,000 nonces at this level without a surge, in CPU-seconds of one core (measured, `npm run bench:widget`).',
    type: 'integer',
  })
  readonly botCpuSecondsPer1000Nonces!: number;
}
